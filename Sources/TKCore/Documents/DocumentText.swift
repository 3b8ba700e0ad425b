/// The one place where a document's bytes become text: UTF-8 as it is, or — for a file that is
/// not UTF-8 but reads as Windows-1252 (Latin-1 with curly quotes and dashes) — those bytes
/// converted to UTF-8, so that checking, search, the agent and the language server see "Café"
/// rather than "Caf\u{FFFD}". Such a document gets one problem line in `status`.
public enum DocumentText {
    /// The problem line for a document read as Latin-1.
    public static func latin1Problem(_ path: String) -> String {
        "\(path): not UTF-8, read as Latin-1 (Windows-1252); save as UTF-8 to silence this"
    }

    /// The UTF-8 bytes of a document and whether they were converted from Windows-1252.
    public static func utf8(_ bytes: [UInt8]) -> (bytes: [UInt8], latin1: Bool) {
        guard let converted = latin1(bytes) else { return (bytes, false) }
        return (converted, true)
    }

    /// `bytes` converted from Windows-1252 to UTF-8 when they are not UTF-8 and read as
    /// Windows-1252 text: no NUL or control bytes other than tab, newline, form feed and carriage
    /// return, none of the five bytes Windows-1252 leaves undefined, and no well-formed UTF-8
    /// multi-byte sequence (a UTF-8 file with one stray byte stays UTF-8). Nil otherwise.
    public static func latin1(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var sawInvalid = false
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                if b < 0x20, b != 9, b != 10, b != 12, b != 13 { return nil }
                i += 1
                continue
            }
            // One well-formed multi-byte sequence: UTF-8 with stray bytes, left as it is (and known
            // at the first curly quote, not after the whole buffer: the language server asks per keystroke).
            if validSequenceLength(bytes, at: i) > 0 { return nil }
            sawInvalid = true
            i += 1
        }
        guard sawInvalid else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(n + n / 8)
        for b in bytes {
            if b < 0x80 { out.append(b); continue }
            guard let scalar = windows1252(b) else { return nil }
            out.append(contentsOf: String(Character(scalar)).utf8)
        }
        return out
    }

    /// The length of the well-formed UTF-8 sequence starting at `i` (2…4), or 0.
    static func validSequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        guard let (need, lower, upper) = lead(bytes[i]), i + need < bytes.count else { return 0 }
        for k in 1...need {
            let c = bytes[i + k]
            let lo: UInt8 = k == 1 ? lower : 0x80, hi: UInt8 = k == 1 ? upper : 0xBF
            if c < lo || c > hi { return 0 }
        }
        return need + 1
    }

    /// What a byte starting a multi-byte UTF-8 sequence asks of the bytes after it: how many follow
    /// (1…3) and the range of the first of them (the others are 0x80…0xBF; RFC 3629's table, which
    /// excludes overlong forms and surrogates). Nil for ASCII and for bytes that start no sequence.
    /// The one table of the UTF-8 rules, shared with `TextSniffer`.
    @inline(__always) static func lead(_ b: UInt8) -> (need: Int, lower: UInt8, upper: UInt8)? {
        switch b {
        case 0xC2...0xDF: (1, 0x80, 0xBF)
        case 0xE0: (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (2, 0x80, 0xBF)
        case 0xED: (2, 0x80, 0x9F)
        case 0xF0: (3, 0x90, 0xBF)
        case 0xF1...0xF3: (3, 0x80, 0xBF)
        case 0xF4: (3, 0x80, 0x8F)
        default: nil
        }
    }

    /// The character a Windows-1252 byte at or above 0x80 stands for (nil for the five undefined ones).
    static func windows1252(_ b: UInt8) -> Unicode.Scalar? {
        guard b >= 0x80 && b < 0xA0 else { return Unicode.Scalar(UInt32(b)) }
        let table: [UInt32] = [
            0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
            0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
        ]
        let v = table[Int(b - 0x80)]
        return v == 0 ? nil : Unicode.Scalar(v)
    }
}
