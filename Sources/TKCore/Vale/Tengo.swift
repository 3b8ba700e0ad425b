import Foundation

/// A small interpreter for the part of Tengo (the Go-like scripting language of Vale's `script`
/// rules) those rules use: values (int, float, string, bool, char, array, map, function,
/// undefined, error), `:=` and assignments (`+=` …, `++`, indexed and selected targets), `if` /
/// `else`, the three `for` forms and `for k, v in`, `func` literals with closures, `return`,
/// `break`, `continue`, the ternary `?:`, and the `text`, `fmt` and `math` modules (regular
/// expressions and offsets as Go's: byte offsets). Strings are byte strings as in Go: `len`,
/// indexes and slices count UTF-8 bytes.
///
/// A script runs with a step budget, so a loop that never ends is an error, not a hang.
public enum Tengo {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var line: Int
        /// The step budget ran out (a loop that does not end, or far too much work).
        var exhausted = false
        var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    final class ArrayBox { var items: [Value]; init(_ items: [Value]) { self.items = items } }
    final class MapBox { var items: [String: Value]; init(_ items: [String: Value]) { self.items = items } }
    final class Function {
        let params: [String]
        let variadic: Bool
        let body: [Stmt]
        let scope: Scope
        init(params: [String], variadic: Bool, body: [Stmt], scope: Scope) {
            self.params = params; self.variadic = variadic; self.body = body; self.scope = scope
        }
    }
    typealias Builtin = ([Value]) throws -> Value

    enum Value {
        case undefined
        case int(Int64)
        case float(Double)
        case string(String)
        case bool(Bool)
        case char(Unicode.Scalar)
        case array(ArrayBox)
        case map(MapBox)
        case function(Function)
        case builtin(String, Builtin)
        case error(Box)

        final class Box { let value: Value; init(_ v: Value) { value = v } }

        var typeName: String {
            switch self {
            case .undefined: "undefined"
            case .int: "int"
            case .float: "float"
            case .string: "string"
            case .bool: "bool"
            case .char: "char"
            case .array: "array"
            case .map: "map"
            case .function: "compiled-function"
            case .builtin: "builtin-function"
            case .error: "error"
            }
        }

        /// Tengo's truthiness: zero values, empty strings and collections, undefined and errors are false.
        var truthy: Bool {
            switch self {
            case .undefined, .error: false
            case .int(let i): i != 0
            case .float(let f): !f.isNaN && f != 0
            case .string(let s): !s.isEmpty
            case .bool(let b): b
            case .char(let c): c.value != 0
            case .array(let a): !a.items.isEmpty
            case .map(let m): !m.items.isEmpty
            case .function, .builtin: true
            }
        }

        /// `string(x)` / how `fmt` prints it.
        var text: String {
            switch self {
            case .undefined: "<undefined>"
            case .int(let i): String(i)
            case .float(let f): Tengo.formatFloat(f)
            case .string(let s): s
            case .bool(let b): b ? "true" : "false"
            case .char(let c): String(Character(c))
            case .array(let a): "[" + a.items.map(\.literal).joined(separator: ", ") + "]"
            case .map(let m): "{" + m.items.keys.sorted().map { "\($0): \(m.items[$0]!.literal)" }.joined(separator: ", ") + "}"
            case .function: "<compiled-function>"
            case .builtin(let n, _): "<builtin-function:\(n)>"
            case .error(let b): "error: \(b.value.literal)"
            }
        }

        var literal: String {
            if case .string(let s) = self { return "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            return text
        }
    }

    static func formatFloat(_ f: Double) -> String {
        if f == f.rounded(), abs(f) < 1e21 { return String(format: "%g", f) }
        return String(f)
    }

    // MARK: - Syntax

    indirect enum Expr {
        case literal(Value)
        case ident(String, Int)
        case array([Expr])
        case map([(String, Expr)])
        case function([String], Bool, [Stmt])
        case unary(String, Expr, Int)
        case binary(String, Expr, Expr, Int)
        case logical(String, Expr, Expr)
        case ternary(Expr, Expr, Expr)
        case call(Expr, [Expr], Bool, Int)
        case index(Expr, Expr, Int)
        case slice(Expr, Expr?, Expr?, Int)
        case selector(Expr, String, Int)
        case importModule(String, Int)
        case makeError(Expr)
        case immutable(Expr)
    }

    indirect enum Stmt {
        case define([String], Expr, Int)
        case assign(Expr, String, Expr, Int)
        case incDec(Expr, String, Int)
        case expr(Expr)
        case ifElse(Stmt?, Expr, [Stmt], [Stmt]?)
        case forLoop(Stmt?, Expr?, Stmt?, [Stmt])
        case forIn(String?, String, Expr, [Stmt], Int)
        case block([Stmt])
        case ret(Expr?)
        case brk
        case cont
    }

    // MARK: - Lexer

    struct Token {
        enum Kind: Equatable { case ident, int, float, string, char, op, semicolon, eof }
        var kind: Kind
        var text: String
        var line: Int
    }

    static func lex(_ source: String) throws -> [Token] {
        let s = Array(source.unicodeScalars)
        var out: [Token] = []
        var i = 0, line = 1
        func needsSemicolon() -> Bool {
            guard let last = out.last else { return false }
            switch last.kind {
            case .ident, .int, .float, .string, .char: return true
            case .op: return [")", "]", "}", "++", "--"].contains(last.text)
            default: return false
            }
        }
        let ops3 = ["...", "&^=", "<<=", ">>="]
        let ops2 = [":=", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "&^"]
        while i < s.count {
            let c = s[i]
            if c == "\n" {
                if needsSemicolon() { out.append(Token(kind: .semicolon, text: "\n", line: line)) }
                line += 1; i += 1; continue
            }
            if c == " " || c == "\t" || c == "\r" { i += 1; continue }
            if c == "/", i + 1 < s.count, s[i + 1] == "/" {
                while i < s.count, s[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += 2
                var sawNewline = false
                while i + 1 < s.count, !(s[i] == "*" && s[i + 1] == "/") { if s[i] == "\n" { line += 1; sawNewline = true }; i += 1 }
                i += 2
                if sawNewline, needsSemicolon() { out.append(Token(kind: .semicolon, text: "\n", line: line)) }
                continue
            }
            if c.properties.isAlphabetic || c == "_" {
                var j = i
                while j < s.count, s[j].properties.isAlphabetic || s[j] == "_" || s[j].properties.numericType == .decimal { j += 1 }
                out.append(Token(kind: .ident, text: String(String.UnicodeScalarView(s[i..<j])), line: line))
                i = j; continue
            }
            if c.properties.numericType == .decimal {
                var j = i, isFloat = false
                if c == "0", i + 1 < s.count, s[i + 1] == "x" || s[i + 1] == "X" {
                    j = i + 2
                    while j < s.count, s[j].properties.isASCIIHexDigit { j += 1 }
                } else {
                    while j < s.count, s[j].properties.numericType == .decimal || s[j] == "." || s[j] == "e" || s[j] == "E"
                            || ((s[j] == "+" || s[j] == "-") && (s[j - 1] == "e" || s[j - 1] == "E")) {
                        if s[j] == "." { if j + 1 < s.count, s[j + 1] == "." { break }; isFloat = true }
                        if s[j] == "e" || s[j] == "E" { isFloat = true }
                        j += 1
                    }
                }
                out.append(Token(kind: isFloat ? .float : .int, text: String(String.UnicodeScalarView(s[i..<j])), line: line))
                i = j; continue
            }
            if c == "\"" || c == "`" || c == "'" {
                var j = i + 1
                var text = String.UnicodeScalarView()
                if c == "`" {
                    while j < s.count, s[j] != "`" { if s[j] == "\n" { line += 1 }; text.append(s[j]); j += 1 }
                } else {
                    while j < s.count, s[j] != c {
                        if s[j] == "\n" { throw Failure(message: "string literal not terminated", line: line) }
                        if s[j] == "\\", j + 1 < s.count {
                            j += 1
                            switch s[j] {
                            case "n": text.append("\n")
                            case "t": text.append("\t")
                            case "r": text.append("\r")
                            case "\\": text.append("\\")
                            case "\"": text.append("\"")
                            case "'": text.append("'")
                            case "0": text.append("\0")
                            case "u", "x":
                                let n = s[j] == "u" ? 4 : 2
                                let hex = String(String.UnicodeScalarView(s[(j + 1)..<min(s.count, j + 1 + n)]))
                                if let v = UInt32(hex, radix: 16), let u = Unicode.Scalar(v) { text.append(u) }
                                j += n
                            default: text.append("\\"); text.append(s[j])
                            }
                        } else {
                            text.append(s[j])
                        }
                        j += 1
                    }
                }
                guard j < s.count else { throw Failure(message: "literal not terminated", line: line) }
                out.append(Token(kind: c == "'" ? .char : .string, text: String(text), line: line))
                i = j + 1; continue
            }
            let rest3 = i + 3 <= s.count ? String(String.UnicodeScalarView(s[i..<(i + 3)])) : ""
            let rest2 = i + 2 <= s.count ? String(String.UnicodeScalarView(s[i..<(i + 2)])) : ""
            if ops3.contains(rest3) { out.append(Token(kind: .op, text: rest3, line: line)); i += 3; continue }
            if ops2.contains(rest2) { out.append(Token(kind: .op, text: rest2, line: line)); i += 2; continue }
            if c == ";" { out.append(Token(kind: .semicolon, text: ";", line: line)); i += 1; continue }
            if "+-*/%&|^<>=!(){}[],.:?".unicodeScalars.contains(c) {
                out.append(Token(kind: .op, text: String(Character(c)), line: line)); i += 1; continue
            }
            throw Failure(message: "unexpected character '\(Character(c))'", line: line)
        }
        if needsSemicolon() { out.append(Token(kind: .semicolon, text: "\n", line: line)) }
        out.append(Token(kind: .eof, text: "", line: line))
        return out
    }

    // MARK: - Parser

    struct Parser {
        var t: [Token]
        var i = 0
        /// No map literal may start here (the condition of `if` / `for`, where `{` opens the block).
        var noBrace = false

        init(_ tokens: [Token]) { t = tokens }

        var cur: Token { t[i] }
        func isOp(_ s: String) -> Bool { cur.kind == .op && cur.text == s }
        func isIdent(_ s: String) -> Bool { cur.kind == .ident && cur.text == s }
        mutating func advance() -> Token { let x = t[i]; if i < t.count - 1 { i += 1 }; return x }
        mutating func expect(_ s: String) throws {
            guard isOp(s) else { throw Failure(message: "expected '\(s)', found '\(cur.text == "\n" ? "newline" : cur.text)'", line: cur.line) }
            _ = advance()
        }
        mutating func skipSemicolons() { while cur.kind == .semicolon { _ = advance() } }

        mutating func program() throws -> [Stmt] {
            var out: [Stmt] = []
            skipSemicolons()
            while cur.kind != .eof {
                out.append(try statement())
                if cur.kind == .semicolon { skipSemicolons() } else if cur.kind != .eof && !isOp("}") {
                    throw Failure(message: "unexpected '\(cur.text)'", line: cur.line)
                }
            }
            return out
        }

        mutating func block() throws -> [Stmt] {
            // Blocks nest like expressions (`if a { if b { {` …): counted on the same depth.
            depth += 1
            defer { depth -= 1 }
            guard depth < 200 else { throw Failure(message: "blocks nested too deeply", line: cur.line) }
            try expect("{")
            var out: [Stmt] = []
            skipSemicolons()
            while !isOp("}") {
                guard cur.kind != .eof else { throw Failure(message: "missing '}'", line: cur.line) }
                out.append(try statement())
                if cur.kind == .semicolon { skipSemicolons() } else if !isOp("}") {
                    throw Failure(message: "unexpected '\(cur.text)'", line: cur.line)
                }
            }
            _ = advance()
            return out
        }

        mutating func statement() throws -> Stmt {
            let line = cur.line
            if cur.kind == .ident {
                switch cur.text {
                case "if": return try ifStatement()
                case "for": return try forStatement()
                case "return":
                    _ = advance()
                    if cur.kind == .semicolon || isOp("}") || cur.kind == .eof { return .ret(nil) }
                    return .ret(try expression())
                case "export":
                    _ = advance()
                    return .ret(try expression())
                case "break": _ = advance(); return .brk
                case "continue": _ = advance(); return .cont
                default: break
                }
            }
            if isOp("{") { return .block(try block()) }
            return try simpleStatement(line)
        }

        mutating func simpleStatement(_ line: Int) throws -> Stmt {
            // `a, b := …` (define) or an expression / assignment.
            if cur.kind == .ident, t[i + 1].kind == .op, t[i + 1].text == ":=" || t[i + 1].text == "," {
                var names = [advance().text]
                while isOp(",") { _ = advance(); names.append(advance().text) }
                if isOp(":=") {
                    _ = advance()
                    return .define(names, try expression(), line)
                }
                throw Failure(message: "expected ':='", line: line)
            }
            let lhs = try expression()
            if cur.kind == .op {
                let op = cur.text
                if ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "&^="].contains(op) {
                    _ = advance()
                    return .assign(lhs, op, try expression(), line)
                }
                if op == "++" || op == "--" { _ = advance(); return .incDec(lhs, op, line) }
            }
            return .expr(lhs)
        }

        mutating func ifStatement() throws -> Stmt {
            _ = advance()
            let saved = noBrace
            noBrace = true
            var initStmt: Stmt?
            var cond: Expr
            let first = try simpleStatement(cur.line)
            if cur.kind == .semicolon && cur.text == ";" {
                _ = advance()
                initStmt = first
                cond = try expression()
            } else if case .expr(let e) = first {
                cond = e
            } else {
                throw Failure(message: "an if needs a condition", line: cur.line)
            }
            noBrace = saved
            let body = try block()
            var elseBody: [Stmt]?
            if isIdent("else") {
                _ = advance()
                if isIdent("if") { elseBody = [try ifStatement()] } else { elseBody = try block() }
            }
            return .ifElse(initStmt, cond, body, elseBody)
        }

        mutating func forStatement() throws -> Stmt {
            let line = advance().line
            if isOp("{") { return .forLoop(nil, nil, nil, try block()) }
            let saved = noBrace
            noBrace = true
            defer { noBrace = saved }
            // for k, v in x / for v in x
            if cur.kind == .ident, (t[i + 1].kind == .ident && t[i + 1].text == "in") || (t[i + 1].kind == .op && t[i + 1].text == ",") {
                let first = advance().text
                var second: String?
                if isOp(",") { _ = advance(); second = advance().text }
                guard isIdent("in") else { throw Failure(message: "expected 'in'", line: cur.line) }
                _ = advance()
                let seq = try expression()
                noBrace = saved
                let body = try block()
                return second == nil ? .forIn(nil, first, seq, body, line) : .forIn(first, second!, seq, body, line)
            }
            var initStmt: Stmt?
            var cond: Expr?
            var post: Stmt?
            if cur.kind == .semicolon && cur.text == ";" {
                _ = advance()
            } else {
                let s = try simpleStatement(cur.line)
                if isOp("{") {
                    guard case .expr(let e) = s else { throw Failure(message: "a for needs a condition", line: line) }
                    noBrace = saved
                    return .forLoop(nil, e, nil, try block())
                }
                initStmt = s
                guard cur.kind == .semicolon else { throw Failure(message: "expected ';'", line: cur.line) }
                _ = advance()
            }
            if !(cur.kind == .semicolon) { cond = try expression() }
            guard cur.kind == .semicolon else { throw Failure(message: "expected ';'", line: cur.line) }
            _ = advance()
            if !isOp("{") { post = try simpleStatement(cur.line) }
            noBrace = saved
            return .forLoop(initStmt, cond, post, try block())
        }

        mutating func expression() throws -> Expr {
            let c = try binary(0)
            if isOp("?") {
                _ = advance()
                let a = try expression()
                try expect(":")
                let b = try expression()
                return .ternary(c, a, b)
            }
            return c
        }

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!=", "<", "<=", ">", ">="], ["+", "-", "|", "^"],
                                         ["*", "/", "%", "<<", ">>", "&", "&^"]]

        mutating func binary(_ level: Int) throws -> Expr {
            if level == Self.levels.count { return try unary() }
            var lhs = try binary(level + 1)
            while cur.kind == .op, Self.levels[level].contains(cur.text) {
                let op = advance()
                let rhs = try binary(level + 1)
                lhs = op.text == "&&" || op.text == "||" ? .logical(op.text, lhs, rhs) : .binary(op.text, lhs, rhs, op.line)
            }
            return lhs
        }

        /// How deep expressions nest (a rule file's script is input: nesting past this is an error,
        /// not a stack overflow).
        var depth = 0

        mutating func unary() throws -> Expr {
            depth += 1
            defer { depth -= 1 }
            guard depth < 200 else { throw Failure(message: "expressions nested too deeply", line: cur.line) }
            if cur.kind == .op, ["-", "!", "^", "+"].contains(cur.text) {
                let op = advance()
                return .unary(op.text, try unary(), op.line)
            }
            return try postfix(try primary())
        }

        mutating func postfix(_ base: Expr) throws -> Expr {
            var e = base
            while true {
                let line = cur.line
                if isOp("(") {
                    _ = advance()
                    var args: [Expr] = []
                    var spread = false
                    let saved = noBrace
                    noBrace = false
                    skipSemicolons()
                    while !isOp(")") {
                        args.append(try expression())
                        if isOp("...") { _ = advance(); spread = true }
                        skipSemicolons()
                        if isOp(",") { _ = advance(); skipSemicolons() } else { break }
                    }
                    noBrace = saved
                    try expect(")")
                    e = .call(e, args, spread, line)
                } else if isOp("[") {
                    _ = advance()
                    let saved = noBrace
                    noBrace = false
                    defer { noBrace = saved }
                    var lo: Expr?
                    if !isOp(":") { lo = try expression() }
                    if isOp(":") {
                        _ = advance()
                        var hi: Expr?
                        if !isOp("]") { hi = try expression() }
                        try expect("]")
                        e = .slice(e, lo, hi, line)
                    } else {
                        try expect("]")
                        guard let lo else { throw Failure(message: "missing index", line: line) }
                        e = .index(e, lo, line)
                    }
                } else if isOp(".") {
                    _ = advance()
                    guard cur.kind == .ident else { throw Failure(message: "expected a name after '.'", line: line) }
                    e = .selector(e, advance().text, line)
                } else {
                    return e
                }
            }
        }

        mutating func primary() throws -> Expr {
            let tok = cur
            switch tok.kind {
            case .int:
                _ = advance()
                let v = tok.text.hasPrefix("0x") || tok.text.hasPrefix("0X") ? Int64(tok.text.dropFirst(2), radix: 16) : Int64(tok.text)
                guard let v else { throw Failure(message: "bad number \(tok.text)", line: tok.line) }
                return .literal(.int(v))
            case .float:
                _ = advance()
                guard let v = Double(tok.text) else { throw Failure(message: "bad number \(tok.text)", line: tok.line) }
                return .literal(.float(v))
            case .string:
                _ = advance()
                return .literal(.string(tok.text))
            case .char:
                _ = advance()
                guard let c = tok.text.unicodeScalars.first, tok.text.unicodeScalars.count == 1 else {
                    throw Failure(message: "bad character literal", line: tok.line)
                }
                return .literal(.char(c))
            case .ident:
                switch tok.text {
                case "true": _ = advance(); return .literal(.bool(true))
                case "false": _ = advance(); return .literal(.bool(false))
                case "undefined": _ = advance(); return .literal(.undefined)
                case "func":
                    _ = advance()
                    try expect("(")
                    var params: [String] = []
                    var variadic = false
                    while !isOp(")") {
                        if isOp("...") { _ = advance(); variadic = true }
                        guard cur.kind == .ident else { throw Failure(message: "expected a parameter name", line: cur.line) }
                        params.append(advance().text)
                        if isOp(",") { _ = advance() } else { break }
                    }
                    try expect(")")
                    let saved = noBrace
                    noBrace = false
                    defer { noBrace = saved }
                    return .function(params, variadic, try block())
                case "import":
                    _ = advance()
                    try expect("(")
                    guard cur.kind == .string else { throw Failure(message: "import needs a module name", line: tok.line) }
                    let name = advance().text
                    try expect(")")
                    return .importModule(name, tok.line)
                case "error", "immutable":
                    _ = advance()
                    try expect("(")
                    let v = try expression()
                    try expect(")")
                    return tok.text == "error" ? .makeError(v) : .immutable(v)
                default:
                    _ = advance()
                    return .ident(tok.text, tok.line)
                }
            case .op:
                if tok.text == "(" {
                    _ = advance()
                    let saved = noBrace
                    noBrace = false
                    defer { noBrace = saved }
                    let e = try expression()
                    try expect(")")
                    return e
                }
                if tok.text == "[" {
                    _ = advance()
                    let saved = noBrace
                    noBrace = false
                    defer { noBrace = saved }
                    var items: [Expr] = []
                    skipSemicolons()
                    while !isOp("]") {
                        items.append(try expression())
                        skipSemicolons()
                        if isOp(",") { _ = advance(); skipSemicolons() } else { break }
                    }
                    try expect("]")
                    return .array(items)
                }
                if tok.text == "{" && !noBrace {
                    _ = advance()
                    var pairs: [(String, Expr)] = []
                    skipSemicolons()
                    while !isOp("}") {
                        guard cur.kind == .ident || cur.kind == .string else { throw Failure(message: "expected a map key", line: cur.line) }
                        let key = advance().text
                        try expect(":")
                        pairs.append((key, try expression()))
                        skipSemicolons()
                        if isOp(",") { _ = advance(); skipSemicolons() } else { break }
                    }
                    try expect("}")
                    return .map(pairs)
                }
            default: break
            }
            throw Failure(message: "unexpected '\(tok.text == "\n" ? "newline" : tok.text)'", line: tok.line)
        }
    }

    /// Parses a script (once; run it as often as needed).
    static func parse(_ source: String) throws -> [Stmt] {
        var p = Parser(try lex(source))
        return try p.program()
    }
}
