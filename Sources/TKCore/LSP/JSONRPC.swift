/// JSON-RPC 2.0 over a byte stream with LSP's `Content-Length` header framing.
///
/// `LSPFramer` is fed whatever `read(2)` returned (any split: half a header, half a body, three
/// messages at once) and hands back complete message bodies, or a framing error for a header it
/// cannot use — after which it resynchronises at the next header, so one bad message never stops
/// the server.
public struct LSPFramer: Sendable {
    public enum Item: Sendable, Equatable {
        /// A complete message body (the JSON bytes).
        case message([UInt8])
        /// A header that could not be used; one line saying why.
        case error(String)
    }

    /// Headers longer than this without the blank line that ends them are garbage.
    public static let maxHeaderBytes = 8192
    /// The largest body accepted (a 100,000-word document is well under 1 MB).
    public static let maxBodyBytes = 64 << 20

    private var buffer: [UInt8] = []
    private var start = 0
    /// The body length of the message whose header has been read, waiting for the body.
    private var pendingLength: Int?

    public init() {}

    /// Bytes received and not yet handed out.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete item, or nil when more bytes are needed.
    public mutating func next() -> Item? {
        if let length = pendingLength {
            guard buffer.count - start >= length else { return nil }
            let body = Array(buffer[start..<(start + length)])
            start += length
            pendingLength = nil
            return .message(body)
        }
        // Skip blank lines between messages (some clients send a stray CRLF).
        while start < buffer.count, buffer[start] == 13 || buffer[start] == 10 { start += 1 }
        guard start < buffer.count else { return nil }
        guard let end = headerEnd() else {
            if buffer.count - start > Self.maxHeaderBytes {
                start = buffer.count
                return .error("header longer than \(Self.maxHeaderBytes) bytes without a blank line; discarded")
            }
            return nil
        }
        let header = String(decoding: buffer[start..<end.headerEnd], as: UTF8.self)
        start = end.bodyStart
        var length: Int?
        for line in header.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            guard let colon = line.firstIndex(of: ":") else {
                return .error("malformed header line \"\(line.prefix(80))\" (expected Name: value)")
            }
            let name = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if name == "content-length" {
                guard let n = Int(value), n >= 0 else { return .error("Content-Length \"\(value.prefix(40))\" is not a number") }
                guard n <= Self.maxBodyBytes else {
                    return .error("Content-Length \(n) is over the limit of \(Self.maxBodyBytes) bytes")
                }
                length = n
            }
        }
        guard let length else { return .error("message header without Content-Length") }
        pendingLength = length
        return next()
    }

    /// Where the header block ends (`\r\n\r\n`, or `\n\n` from lenient clients).
    private func headerEnd() -> (headerEnd: Int, bodyStart: Int)? {
        var i = start
        let n = buffer.count
        while i < n {
            if buffer[i] == 10 {
                if i + 1 < n, buffer[i + 1] == 10 { return (i, i + 2) }
                if i + 2 < n, buffer[i + 1] == 13, buffer[i + 2] == 10 { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }

    /// A message body framed with its header.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}

/// JSON-RPC error codes used by the server.
public enum JSONRPCError {
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    public static let serverNotInitialized = -32002
    public static let requestCancelled = -32800
}

/// One decoded JSON-RPC message.
public enum JSONRPCMessage: Sendable, Equatable {
    case request(id: JSONValue, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: JSONValue, result: JSONValue?, error: JSONValue?)

    /// Decodes a body; a failure carries the error response to send (id null when unknown).
    public static func decode(_ body: [UInt8]) -> Result<JSONRPCMessage, JSONRPCFailure> {
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch {
            return .failure(JSONRPCFailure(id: .null, code: JSONRPCError.parseError,
                                           message: "the message body is not valid JSON (\(body.count) bytes)"))
        }
        guard case .object(let o) = value else {
            return .failure(JSONRPCFailure(id: .null, code: JSONRPCError.invalidRequest,
                                           message: "a JSON-RPC message must be an object"))
        }
        let id = o["id"]
        if let id {
            switch id {
            case .number, .string: break
            case .null where o["method"] == nil: break
            default:
                return .failure(JSONRPCFailure(id: .null, code: JSONRPCError.invalidRequest,
                                               message: "\"id\" must be a number or a string"))
            }
        }
        if let m = o["method"] {
            guard case .string(let method) = m else {
                return .failure(JSONRPCFailure(id: id ?? .null, code: JSONRPCError.invalidRequest,
                                               message: "\"method\" must be a string"))
            }
            let params = o["params"] ?? .null
            if let id { return .success(.request(id: id, method: method, params: params)) }
            return .success(.notification(method: method, params: params))
        }
        if let id, o["result"] != nil || o["error"] != nil {
            return .success(.response(id: id, result: o["result"], error: o["error"]))
        }
        return .failure(JSONRPCFailure(id: id ?? .null, code: JSONRPCError.invalidRequest,
                                       message: "a JSON-RPC message needs a \"method\" (request, notification) or a \"result\"/\"error\" (response)"))
    }
}

/// An error response to send.
public struct JSONRPCFailure: Error, Sendable, Equatable {
    public var id: JSONValue
    public var code: Int
    public var message: String
    public init(id: JSONValue, code: Int, message: String) { self.id = id; self.code = code; self.message = message }

    public var response: JSONValue {
        .object(["jsonrpc": "2.0", "id": id,
                 "error": .object(["code": .number(Double(code)), "message": .string(message)])])
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o: [String: JSONValue] = [:]
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }

    /// The value as an integer, when it is a whole number.
    public var intValue: Int? {
        if case .number(let n) = self, n.rounded() == n, abs(n) < 1e15 { return Int(n) }
        return nil
    }

    /// Compact JSON bytes (for the wire), written directly: several times faster than
    /// `JSONEncoder` for the thousands of diagnostics of a big document. Keys are sorted.
    public var wireBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        Self.write(self, to: &out)
        return out
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func write(_ v: JSONValue, to out: inout [UInt8]) {
        switch v {
        case .null: out += [110, 117, 108, 108]
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { out += Array(String(Int64(n)).utf8) }
            else if n.isFinite { out += Array("\(n)".utf8) }
            else { out += [110, 117, 108, 108] }
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.append(91)
            for (i, x) in a.enumerated() {
                if i > 0 { out.append(44) }
                write(x, to: &out)
            }
            out.append(93)
        case .object(let o):
            out.append(123)
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out.append(44) }
                writeString(k, to: &out)
                out.append(58)
                write(o[k]!, to: &out)
            }
            out.append(125)
        }
    }

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(34)
        for b in s.utf8 {
            switch b {
            case 34: out += [92, 34]
            case 92: out += [92, 92]
            case 10: out += [92, 110]
            case 13: out += [92, 114]
            case 9: out += [92, 116]
            case 0..<32:
                out += [92, 117, 48, 48, hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(34)
    }

    static func int(_ n: Int) -> JSONValue { .number(Double(n)) }
}
