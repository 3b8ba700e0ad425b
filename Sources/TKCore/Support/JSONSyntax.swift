/// Where a JSON text first goes wrong, for error lines that name the line and column
/// (Foundation's decoder says only "The given data was not valid JSON.").
public enum JSONSyntax {
    /// The first syntax error of a JSON text.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
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
        var p = Parser(bytes: bytes)
        do throws(Failure) {
            p.skipSpace()
            try p.value(depth: 0)
            p.skipSpace()
            if p.i < bytes.count { throw Failure(offset: p.i, message: "unexpected text after the end of the JSON value") }
            return nil
        } catch {
            return position(of: error.offset, in: bytes, message: error.message)
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

        mutating func value(depth: Int) throws(Failure) {
            guard depth < 512 else { throw fail("nested too deeply") }
            guard i < bytes.count else { throw fail("expected a value") }
            switch bytes[i] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "'"): throw fail("strings take double quotes (\"), not single quotes")
            default: throw fail("expected a value (a string, number, object, array, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return }
            while true {
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
                try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                i += 1
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or '}'") }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return }
                guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or '}' after the value (a comma missing?)") }
                i += 1
                skipSpace()
                // A trailing comma: the decoder the configuration goes through accepts it.
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return }
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
            while true {
                try value(depth: depth + 1)
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or ']'") }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return }
                guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or ']' after the value (a comma missing?)") }
                i += 1
                skipSpace()
                // A trailing comma: the decoder the configuration goes through accepts it.
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
            }
        }

        mutating func string() throws(Failure) {
            let start = i
            i += 1
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { i += 1; return }
                if b == UInt8(ascii: "\\") {
                    i += 1
                    guard i < bytes.count else { break }
                    let e = bytes[i]
                    if e == UInt8(ascii: "u") {
                        for k in 1...4 {
                            guard i + k < bytes.count, isHex(bytes[i + k]) else { i += k; throw fail("\\u takes four hex digits") }
                        }
                        i += 5
                        continue
                    }
                    guard Array("\"\\/bfnrt".utf8).contains(e) else { throw fail("unknown escape \\\(Character(Unicode.Scalar(e)))") }
                    i += 1
                    continue
                }
                if b < 0x20 { throw fail(b == 10 ? "a string is not closed on its line (missing \")" : "a control character inside a string") }
                i += 1
            }
            i = start
            throw fail("a string is never closed (missing \")")
        }

        func isHex(_ b: UInt8) -> Bool {
            (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
        }

        mutating func number() throws(Failure) {
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
