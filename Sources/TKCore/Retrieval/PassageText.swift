import CZlib

/// How a passage's text is kept in the database: once, zlib-compressed, in `passage.body`.
///
/// `passage_fts` is contentless (`content=''`): it holds the index only, not a second copy of the
/// text. A contentless FTS5 table on SQLite 3.40 forgets a row only when told the exact text it was
/// given (the `delete` command), so a deleted passage's heading and packed text go to
/// `passage_gone` (by trigger, which also catches the cascade from `document`) and
/// `AppDatabase.forgetGonePassages` unpacks them and tells the index.
public enum PassageText {
    /// The text compressed at zlib's fastest level (this runs on the indexer's loading cores). On
    /// the large corpus's 87,419 passages: 103.8 MB of text → 31.3 MB; the default level saved
    /// 6% more for 12% more time.
    /// - Returns: the bytes to store and the text's length in bytes, or -1 when the text is stored
    ///   as it is (zlib failed, which it does only without memory).
    public static func pack(_ text: String) -> (bytes: [UInt8], size: Int) {
        let input = Array(text.utf8)
        if input.isEmpty { return ([], 0) }
        var bound = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let code = input.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                compress2(dst.baseAddress, &bound, src.baseAddress, uLong(src.count), Z_BEST_SPEED)
            }
        }
        guard code == Z_OK else { return (input, -1) }
        out.removeSubrange(Int(bound)...)
        return (out, input.count)
    }

    /// The text back from `pack`. Nil when the bytes are damaged.
    public static func unpack(_ packed: [UInt8], size: Int) -> String? {
        if size == 0 { return "" }
        if size == -1 { return String(decoding: packed, as: UTF8.self) }
        guard size > 0, size <= 64 << 20,
              let bytes = try? Compression.decompress(packed, expected: size, limit: max(size, 64)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
