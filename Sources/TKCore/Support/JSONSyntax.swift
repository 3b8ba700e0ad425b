/// Where a JSON text first goes wrong, for error lines that name the line and column
/// (Foundation's decoder says only "The given data was not valid JSON."), and the reader of
/// `JSONValue.parse`: the same grammar builds the value, so that reading a JSON text does not go
/// through `JSONDecoder` (whose first use in a process costs milliseconds of the Swift runtime's
/// type look-ups: `check` reads the built-in configuration at every start).
public enum JSONSyntax {
    /// The first syntax error of a JSON text.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// 1-based line.
        public var line: Int
        /// 1-based column, in Unicode scalars.
        public var column: Int
        public var message: String
        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// The first syntax error in `bytes` (RFC 8259 JSON, plus trailing commas, which Foundation's
    /// decoder accepts), or nil when it is valid.
    public static func firstProblem(_ bytes: [UInt8]) -> Problem? {
        do throws(Problem) {
            _ = try value(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The value of a JSON text, read as Foundation's `JSONDecoder` reads it into a `JSONValue`:
    /// RFC 8259 with trailing commas and a leading byte-order mark, the first of two equal keys,
    /// numbers as the nearest `Double` (one that overflows, or underflows to zero, is an error),
    /// strings valid UTF-8 with paired surrogates. `JSONValueParseTests` compares the two.
    public static func value(_ bytes: [UInt8]) throws(Problem) -> JSONValue {
        var p = Parser(bytes: bytes)
        do throws(Failure) {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.i = 3 }
            p.skipSpace()
            let v = try p.value(depth: 0)
            p.skipSpace()
            if p.i < bytes.count { throw Failure(offset: p.i, message: "unexpected text after the end of the JSON value") }
            return v
        } catch {
            throw position(of: error.offset, in: bytes, message: error.message)
        }
    }

    static func position(of offset: Int, in bytes: [UInt8], message: String) -> Problem {
        var line = 1, column = 1
        for b in bytes.prefix(offset) {
            if b == 10 { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return Problem(line: line, column: column, message: message)
    }

    struct Failure: Error { var offset: Int; var message: String }

    struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ message: String) -> Failure {
            Failure(offset: i, message: i < bytes.count ? message : "the text ends early: " + message)
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < 512 else { throw fail("nested too deeply") }
            guard i < bytes.count else { throw fail("expected a value") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "'"): throw fail("strings take double quotes (\"), not single quotes")
            default: throw fail("expected a value (a string, number, object, array, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            skipSpace()
            var o: [String: JSONValue] = [:]
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                i += 1
                skipSpace()
                let v = try value(depth: depth + 1)
                // Of two equal keys the first counts, as in Foundation's decoder.
                if o[key] == nil { o[key] = v }
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or '}'") }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or '}' after the value (a comma missing?)") }
                i += 1
                skipSpace()
                // A trailing comma: the decoder the configuration goes through accepts it.
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            skipSpace()
            var a: [JSONValue] = []
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                a.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or ']'") }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or ']' after the value (a comma missing?)") }
                i += 1
                skipSpace()
                // A trailing comma: the decoder the configuration goes through accepts it.
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            }
        }

        /// A string's value; `i` is at its opening quote.
        mutating func string() throws(Failure) -> String {
            let start = i
            i += 1
            var runStart = i
            var out: [UInt8] = []
            var escaped = false
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") {
                    let run = bytes[runStart..<i]
                    i += 1
                    if !escaped {
                        guard let s = String(validating: run, as: UTF8.self) else { throw invalidUTF8(start) }
                        return s
                    }
                    out.append(contentsOf: run)
                    guard let s = String(validating: out, as: UTF8.self) else { throw invalidUTF8(start) }
                    return s
                }
                if b == UInt8(ascii: "\\") {
                    escaped = true
                    out.append(contentsOf: bytes[runStart..<i])
                    i += 1
                    guard i < bytes.count else { break }
                    let e = bytes[i]
                    if e == UInt8(ascii: "u") {
                        let unit = try hex4()
                        if unit >= 0xD800, unit < 0xDC00 {
                            // A high surrogate takes the low one of the next escape.
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                                throw fail("a \\u escape of a high surrogate is not followed by its low surrogate")
                            }
                            i += 1
                            let low = try hex4()
                            guard low >= 0xDC00, low < 0xE000 else {
                                throw fail("a \\u escape of a high surrogate is not followed by its low surrogate")
                            }
                            append(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), to: &out)
                        } else if unit >= 0xDC00, unit < 0xE000 {
                            throw fail("a \\u escape of a low surrogate with no high surrogate before it")
                        } else {
                            append(unit, to: &out)
                        }
                        runStart = i
                        continue
                    }
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    default: throw fail("unknown escape \\\(Character(Unicode.Scalar(e)))")
                    }
                    i += 1
                    runStart = i
                    continue
                }
                if b < 0x20 { throw fail(b == 10 ? "a string is not closed on its line (missing \")" : "a control character inside a string") }
                i += 1
            }
            i = start
            throw fail("a string is never closed (missing \")")
        }

        func invalidUTF8(_ start: Int) -> Failure {
            Failure(offset: start, message: "a string that is not valid UTF-8")
        }

        /// The four hex digits after `\\u` (`i` at the `u`), leaving `i` after them.
        mutating func hex4() throws(Failure) -> UInt32 {
            var unit: UInt32 = 0
            for k in 1...4 {
                guard i + k < bytes.count, isHex(bytes[i + k]) else { i += k; throw fail("\\u takes four hex digits") }
                let h = bytes[i + k]
                unit = unit << 4 | UInt32(h <= 57 ? h - 48 : (h | 0x20) - 87)
            }
            i += 5
            return unit
        }

        func append(_ scalar: UInt32, to out: inout [UInt8]) {
            guard let u = Unicode.Scalar(scalar) else { return }
            UTF8.encode(u) { out.append($0) }
        }

        func isHex(_ b: UInt8) -> Bool {
            (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
        }

        /// A number as the nearest `Double`; one too large for it, or so small it rounds to zero
        /// (though a digit of it is not zero), is an error, as in Foundation's decoder.
        mutating func number() throws(Failure) -> Double {
            let start = i
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            func digits() -> Int {
                let s = i
                while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
                return i - s
            }
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("expected a digit") }
            if bytes[i] == 48 { i += 1 } else { _ = digits() }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { throw fail("expected a digit after the decimal point") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw fail("expected a digit in the exponent") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard let d = Double(text), d.isFinite else { i = start; throw fail("a number too large for a double: \(text)") }
            if d == 0 {
                // Zero only when every digit of the mantissa is.
                var k = start
                while k < i, bytes[k] != UInt8(ascii: "e"), bytes[k] != UInt8(ascii: "E") {
                    if bytes[k] >= 49, bytes[k] <= 57 { i = start; throw fail("a number too small for a double: \(text)") }
                    k += 1
                }
            }
            return d
        }

        mutating func literal(_ word: String) throws(Failure) {
            let start = i
            for b in word.utf8 {
                guard i < bytes.count, bytes[i] == b else { i = start; throw fail("expected \(word) (words other than true, false and null need double quotes)") }
                i += 1
            }
        }
    }
}
