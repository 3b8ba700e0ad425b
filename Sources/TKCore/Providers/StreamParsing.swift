/// Splits a byte stream into lines, on bytes, so a UTF-8 character cut across chunks is never
/// decoded in halves. Accepts `\n`, `\r\n` and a lone `\r` as line ends (a `\r\n` split across
/// two chunks counts once). `\n` and `\r` never occur inside a multi-byte UTF-8 sequence, so a
/// complete line is always whole characters.
public struct LineSplitter: Sendable {
    private var buffer: [UInt8] = []
    private var skipLeadingLF = false
    /// Lines longer than this are cut (a broken server must not exhaust memory).
    public var maxLineBytes: Int

    public init(maxLineBytes: Int = 16 << 20) { self.maxLineBytes = maxLineBytes }

    /// Feeds a chunk; returns the lines it completed, without their terminators.
    public mutating func push<C: Collection>(_ chunk: C) -> [[UInt8]] where C.Element == UInt8 {
        var lines: [[UInt8]] = []
        for b in chunk {
            if skipLeadingLF {
                skipLeadingLF = false
                if b == 10 { continue }
            }
            if b == 10 || b == 13 {
                lines.append(buffer)
                buffer.removeAll(keepingCapacity: true)
                if b == 13 { skipLeadingLF = true }
            } else if buffer.count < maxLineBytes {
                buffer.append(b)
            }
        }
        return lines
    }

    /// The bytes after the last line end (a last line without a terminator), and resets.
    public mutating func finish() -> [UInt8]? {
        defer { buffer.removeAll(); skipLeadingLF = false }
        return buffer.isEmpty ? nil : buffer
    }

    /// Whether bytes are waiting for their line end.
    public var hasPartialLine: Bool { !buffer.isEmpty }
}

/// One server-sent event.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field (nil when absent: the default "message" type).
    public var event: String?
    /// The `data:` lines joined with `\n`.
    public var data: String
    /// A non-standard `error:` field (llama.cpp builds through 2025 sent errors this way).
    public var error: String?

    public init(event: String? = nil, data: String, error: String? = nil) {
        self.event = event; self.data = data; self.error = error
    }
}

/// Parses server-sent events from whole lines (WHATWG rules): `data:` lines join with `\n`, a
/// blank line dispatches, `:` comments (pings) are skipped, `id:`/`retry:` and unknown fields are
/// ignored, one space after the colon is dropped.
public struct SSEParser: Sendable {
    private var event: String?
    private var data: [String] = []
    private var hasData = false
    private var error: String?

    public init() {}

    /// Feeds one line (without its terminator); returns the event it completes, if any.
    public mutating func line(_ bytes: [UInt8]) -> SSEEvent? {
        if bytes.isEmpty { return dispatch() }
        if bytes[0] == UInt8(ascii: ":") { return nil }
        let field: String
        let value: String
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var start = colon + 1
            if start < bytes.count, bytes[start] == 32 { start += 1 }
            value = String(decoding: bytes[start...], as: UTF8.self)
        } else {
            field = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event": event = value
        case "data": data.append(value); hasData = true
        case "error": error = value
        default: break
        }
        return nil
    }

    /// Dispatches a pending event at the end of the stream (a last event without its blank line).
    public mutating func finish() -> SSEEvent? { dispatch() }

    private mutating func dispatch() -> SSEEvent? {
        defer { event = nil; data = []; hasData = false; error = nil }
        guard hasData || error != nil else { return nil }
        return SSEEvent(event: event, data: data.joined(separator: "\n"), error: error)
    }

    /// Parses a whole body (for tests and non-incremental use).
    public static func parse(_ bytes: [UInt8]) -> [SSEEvent] {
        var splitter = LineSplitter()
        var parser = SSEParser()
        var out: [SSEEvent] = []
        for l in splitter.push(bytes) { if let e = parser.line(l) { out.append(e) } }
        if let rest = splitter.finish(), let e = parser.line(rest) { out.append(e) }
        if let e = parser.finish() { out.append(e) }
        return out
    }
}

/// Newline-delimited JSON: each non-blank line is one JSON value.
public enum NDJSON {
    /// The JSON values of a whole body; a line that does not parse is returned as nil.
    public static func parse(_ bytes: [UInt8]) -> [JSONValue?] {
        var splitter = LineSplitter()
        var lines = splitter.push(bytes)
        if let rest = splitter.finish() { lines.append(rest) }
        return lines.compactMap { line(($0)) }
    }

    /// One line: nil for a blank line, `.some(nil)` for a line that is not JSON.
    public static func line(_ bytes: [UInt8]) -> JSONValue?? {
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 }) { return nil }
        return .some(try? JSONValue.parse(bytes))
    }
}
