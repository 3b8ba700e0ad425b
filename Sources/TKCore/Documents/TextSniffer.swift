/// Tells text from binary content, so that a file named `.md` that is not text (an image, an
/// archive, random bytes) is reported instead of being indexed, checked or sent to a model.
///
/// Text is UTF-8 without NUL bytes; a share of invalid sequences (Latin-1 accents, a stray byte, a
/// file cut in the middle of a character) is tolerated and decoded as U+FFFD. Even a short line of
/// Latin-1 French is well under a fifth of invalid bytes; random or compressed bytes are about half.
public enum TextSniffer {
    /// The largest share of bytes in invalid UTF-8 sequences that still counts as text.
    public static let maxInvalidShare = 0.2

    /// Why the bytes are not text (`"NUL bytes"`, `"not UTF-8 (12% invalid)"`), or nil when they are text.
    public static func problem<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
        if bytes.isEmpty { return nil }
        var invalid = 0
        var count = 0
        var iterator = bytes.makeIterator()
        // Counts the bytes that are not part of a well-formed sequence (streaming, by the rules of
        // `DocumentText.lead`).
        var pending: [UInt8] = []
        pending.reserveCapacity(4)
        var need = 0
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        while let b = iterator.next() {
            count += 1
            if b == 0 { return "NUL bytes" }
            if need > 0 {
                if b >= lower && b <= upper {
                    pending.append(b)
                    need -= 1
                    lower = 0x80; upper = 0xBF
                    if need == 0 { pending.removeAll(keepingCapacity: true) }
                    continue
                }
                // The sequence broke: its bytes so far are invalid; this byte starts afresh.
                invalid += pending.count
                pending.removeAll(keepingCapacity: true)
                need = 0
                lower = 0x80; upper = 0xBF
            }
            if b < 0x80 { continue }
            guard let rule = DocumentText.lead(b) else { invalid += 1; continue }
            (need, lower, upper) = rule
            pending.append(b)
        }
        invalid += pending.count
        let share = Double(invalid) / Double(count)
        if share > maxInvalidShare, DocumentText.latin1(Array(bytes)) == nil {
            let percent = Int((share * 100).rounded(.up))
            return "not UTF-8 text (\(percent)% of the bytes are invalid)"
        }
        return nil
    }

    /// The problem line for a document that is not text, as `status` shows it.
    public static func message(_ path: String, _ reason: String) -> String {
        "\(path): not a text file (\(reason)); skipped, not indexed or reviewed"
    }
}
