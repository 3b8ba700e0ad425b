import Foundation

extension Tengo {
    /// A parsed script, shareable between threads.
    ///
    /// `@unchecked Sendable`: the syntax tree is built once and never mutated; its literals are
    /// scalars and strings only (arrays, maps and functions, the reference values, are made while a
    /// script runs, inside one run, on one thread).
    public final class Program: @unchecked Sendable {
        let statements: [Stmt]
        init(_ source: String) throws { statements = try Tengo.parse(source) }
    }

    final class Scope {
        var vars: [String: Value] = [:]
        let parent: Scope?
        init(parent: Scope?) { self.parent = parent }
        func lookup(_ n: String) -> Value? {
            var s: Scope? = self
            while let c = s { if let v = c.vars[n] { return v }; s = c.parent }
            return nil
        }
        func assign(_ n: String, _ v: Value) -> Bool {
            var s: Scope? = self
            while let c = s { if c.vars[n] != nil { c.vars[n] = v; return true }; s = c.parent }
            return false
        }
    }

    enum Flow { case normal, brk, cont, ret(Value) }

    /// Runs `program` with `globals` defined; returns the top-level scope (to read what it set).
    static func run(_ program: Program, globals: [String: Value], budget: Int = 5_000_000) throws -> Scope {
        let top = Scope(parent: nil)
        for (k, v) in globals { top.vars[k] = v }
        var it = Interpreter(budget: budget)
        _ = try it.exec(program.statements, top)
        return top
    }

    struct Interpreter {
        var budget: Int
        var depth = 0

        mutating func tick(_ line: Int) throws {
            budget -= 1
            if budget < 0 { throw Failure(message: "the script ran too long (a loop that does not end?)", line: line, exhausted: true) }
        }

        mutating func exec(_ stmts: [Stmt], _ scope: Scope) throws -> Flow {
            for s in stmts {
                let f = try exec(s, scope)
                if case .normal = f { continue }
                return f
            }
            return .normal
        }

        mutating func exec(_ s: Stmt, _ scope: Scope) throws -> Flow {
            try tick(0)
            switch s {
            case .define(let names, let e, let line):
                let v = try eval(e, scope)
                if names.count == 1 { scope.vars[names[0]] = v; return .normal }
                guard case .array(let a) = v, a.items.count == names.count else {
                    throw Failure(message: "cannot assign \(v.typeName) to \(names.count) names", line: line)
                }
                for (n, x) in zip(names, a.items) { scope.vars[n] = x }
            case .assign(let target, let op, let e, let line):
                var v = try eval(e, scope)
                if op != "=" { v = try binary(String(op.dropLast()), try eval(target, scope), v, line) }
                try store(target, v, scope, line)
            case .incDec(let target, let op, let line):
                let v = try binary(op == "++" ? "+" : "-", try eval(target, scope), .int(1), line)
                try store(target, v, scope, line)
            case .expr(let e):
                _ = try eval(e, scope)
            case .ifElse(let initStmt, let cond, let body, let elseBody):
                let inner = Scope(parent: scope)
                if let initStmt { _ = try exec(initStmt, inner) }
                if try eval(cond, inner).truthy { return try exec(body, Scope(parent: inner)) }
                if let elseBody { return try exec(elseBody, Scope(parent: inner)) }
            case .forLoop(let initStmt, let cond, let post, let body):
                let inner = Scope(parent: scope)
                if let initStmt { _ = try exec(initStmt, inner) }
                while true {
                    try tick(0)
                    if let cond, !(try eval(cond, inner).truthy) { break }
                    let f = try exec(body, Scope(parent: inner))
                    if case .brk = f { break }
                    if case .ret = f { return f }
                    if let post { _ = try exec(post, inner) }
                }
            case .forIn(let keyName, let valueName, let seqExpr, let body, let line):
                let seq = try eval(seqExpr, scope)
                var pairs: [(Value, Value)] = []
                switch seq {
                case .array(let a): pairs = a.items.enumerated().map { (.int(Int64($0.offset)), $0.element) }
                case .map(let m): pairs = m.items.keys.sorted().map { (.string($0), m.items[$0]!) }
                case .string(let str): pairs = str.unicodeScalars.enumerated().map { (.int(Int64($0.offset)), .char($0.element)) }
                case .undefined: pairs = []
                default: throw Failure(message: "cannot iterate over \(seq.typeName)", line: line)
                }
                for (k, v) in pairs {
                    try tick(line)
                    let inner = Scope(parent: scope)
                    if let keyName, keyName != "_" { inner.vars[keyName] = k }
                    if valueName != "_" { inner.vars[valueName] = v }
                    let f = try exec(body, inner)
                    if case .brk = f { break }
                    if case .ret = f { return f }
                }
            case .block(let body):
                return try exec(body, Scope(parent: scope))
            case .ret(let e):
                return .ret(try e.map { try eval($0, scope) } ?? .undefined)
            case .brk: return .brk
            case .cont: return .cont
            }
            return .normal
        }

        mutating func store(_ target: Expr, _ v: Value, _ scope: Scope, _ line: Int) throws {
            switch target {
            case .ident(let n, _):
                if !scope.assign(n, v) { throw Failure(message: "unresolved reference '\(n)'", line: line) }
            case .index(let base, let idx, _):
                let b = try eval(base, scope), i = try eval(idx, scope)
                switch (b, i) {
                case (.array(let a), .int(let n)):
                    guard n >= 0, Int(n) < a.items.count else { throw Failure(message: "index out of bounds", line: line) }
                    a.items[Int(n)] = v
                case (.map(let m), _): m.items[i.text] = v
                default: throw Failure(message: "cannot assign to an index of \(b.typeName)", line: line)
                }
            case .selector(let base, let key, _):
                guard case .map(let m) = try eval(base, scope) else { throw Failure(message: "cannot assign to a field of a non-map", line: line) }
                m.items[key] = v
            default:
                throw Failure(message: "cannot assign to this", line: line)
            }
        }

        mutating func eval(_ e: Expr, _ scope: Scope) throws -> Value {
            switch e {
            case .literal(let v): return v
            case .ident(let n, let line):
                if let v = scope.lookup(n) { return v }
                if let b = Tengo.builtin(n) { return .builtin(n, b) }
                throw Failure(message: "unresolved reference '\(n)'", line: line)
            case .array(let items): return .array(ArrayBox(try items.map { try eval($0, scope) }))
            case .map(let pairs):
                var m: [String: Value] = [:]
                for (k, x) in pairs { m[k] = try eval(x, scope) }
                return .map(MapBox(m))
            case .function(let params, let variadic, let body):
                return .function(Function(params: params, variadic: variadic, body: body, scope: scope))
            case .unary(let op, let x, let line):
                let v = try eval(x, scope)
                switch (op, v) {
                case ("!", _): return .bool(!v.truthy)
                case ("-", .int(let i)): return .int(0 &- i)
                case ("-", .float(let f)): return .float(-f)
                case ("+", .int), ("+", .float): return v
                case ("^", .int(let i)): return .int(~i)
                default: throw Failure(message: "invalid operation: \(op)\(v.typeName)", line: line)
                }
            case .binary(let op, let a, let b, let line):
                return try binary(op, try eval(a, scope), try eval(b, scope), line)
            case .logical(let op, let a, let b):
                let l = try eval(a, scope)
                if op == "&&" { return l.truthy ? try eval(b, scope) : l }
                return l.truthy ? l : try eval(b, scope)
            case .ternary(let c, let a, let b):
                return try eval(c, scope).truthy ? try eval(a, scope) : try eval(b, scope)
            case .call(let fe, let argExprs, let spread, let line):
                let f = try eval(fe, scope)
                var args = try argExprs.map { try eval($0, scope) }
                if spread, case .array(let last)? = args.last { args.removeLast(); args += last.items }
                return try call(f, args, line)
            case .index(let base, let idx, let line):
                let b = try eval(base, scope), i = try eval(idx, scope)
                switch (b, i) {
                case (.array(let a), .int(let n)):
                    guard n >= 0, Int(n) < a.items.count else { throw Failure(message: "index out of bounds", line: line) }
                    return a.items[Int(n)]
                case (.map(let m), _): return m.items[i.text] ?? .undefined
                case (.string(let s), .int(let n)):
                    let scalars = Array(s.unicodeScalars)
                    guard n >= 0, Int(n) < scalars.count else { throw Failure(message: "index out of bounds", line: line) }
                    return .char(scalars[Int(n)])
                case (.undefined, _): return .undefined
                default: throw Failure(message: "cannot index \(b.typeName) with \(i.typeName)", line: line)
                }
            case .slice(let base, let loE, let hiE, let line):
                let b = try eval(base, scope)
                func bound(_ x: Expr?, _ dflt: Int) throws -> Int {
                    guard let x else { return dflt }
                    guard case .int(let n) = try eval(x, scope) else { throw Failure(message: "a slice bound must be an int", line: line) }
                    return Int(n)
                }
                switch b {
                case .array(let a):
                    let lo = try bound(loE, 0), hi = try bound(hiE, a.items.count)
                    guard lo >= 0, lo <= hi, hi <= a.items.count else { throw Failure(message: "slice bounds out of range", line: line) }
                    return .array(ArrayBox(Array(a.items[lo..<hi])))
                case .string(let s):
                    let u = Array(s.utf8)
                    let lo = try bound(loE, 0), hi = try bound(hiE, u.count)
                    guard lo >= 0, lo <= hi, hi <= u.count else { throw Failure(message: "slice bounds out of range", line: line) }
                    return .string(String(decoding: u[lo..<hi], as: UTF8.self))
                default: throw Failure(message: "cannot slice \(b.typeName)", line: line)
                }
            case .selector(let base, let key, let line):
                let b = try eval(base, scope)
                switch b {
                case .map(let m): return m.items[key] ?? .undefined
                case .undefined: return .undefined
                default: throw Failure(message: "\(b.typeName) has no field '\(key)'", line: line)
                }
            case .importModule(let name, let line):
                guard let m = Tengo.module(name) else { throw Failure(message: "module '\(name)' is not available", line: line) }
                return m
            case .makeError(let x): return .error(Value.Box(try eval(x, scope)))
            case .immutable(let x): return try eval(x, scope)
            }
        }

        mutating func call(_ f: Value, _ args: [Value], _ line: Int) throws -> Value {
            try tick(line)
            switch f {
            case .builtin(_, let b):
                do { return try b(args) } catch let e as Failure { throw Failure(message: e.message, line: line) }
            case .function(let fn):
                depth += 1
                defer { depth -= 1 }
                guard depth < 256 else { throw Failure(message: "calls nested too deeply", line: line) }
                let inner = Scope(parent: fn.scope)
                let fixed = fn.variadic ? fn.params.count - 1 : fn.params.count
                guard fn.variadic ? args.count >= fixed : args.count == fixed else {
                    throw Failure(message: "wrong number of arguments: want=\(fn.params.count), got=\(args.count)", line: line)
                }
                for (i, p) in fn.params.enumerated() {
                    if fn.variadic && i == fn.params.count - 1 { inner.vars[p] = .array(ArrayBox(Array(args[fixed...]))) } else { inner.vars[p] = args[i] }
                }
                if case .ret(let v) = try exec(fn.body, inner) { return v }
                return .undefined
            default:
                throw Failure(message: "\(f.typeName) is not callable", line: line)
            }
        }

        func binary(_ op: String, _ a: Value, _ b: Value, _ line: Int) throws -> Value {
            if op == "==" { return .bool(Tengo.equal(a, b)) }
            if op == "!=" { return .bool(!Tengo.equal(a, b)) }
            switch (a, b) {
            case (.int(let x), .int(let y)):
                switch op {
                case "+": return .int(x &+ y)
                case "-": return .int(x &- y)
                case "*": return .int(x &* y)
                case "/": guard y != 0 else { throw Failure(message: "division by zero", line: line) }; return .int(x.dividedReportingOverflow(by: y).partialValue)
                case "%": guard y != 0 else { throw Failure(message: "division by zero", line: line) }; return .int(x.remainderReportingOverflow(dividingBy: y).partialValue)
                case "&": return .int(x & y)
                case "|": return .int(x | y)
                case "^": return .int(x ^ y)
                case "&^": return .int(x & ~y)
                case "<<": return .int(x << y)
                case ">>": return .int(x >> y)
                case "<": return .bool(x < y)
                case "<=": return .bool(x <= y)
                case ">": return .bool(x > y)
                case ">=": return .bool(x >= y)
                default: break
                }
            case (.int, .float), (.float, .int), (.float, .float):
                let x = Tengo.double(a), y = Tengo.double(b)
                switch op {
                case "+": return .float(x + y)
                case "-": return .float(x - y)
                case "*": return .float(x * y)
                case "/": return .float(x / y)
                case "<": return .bool(x < y)
                case "<=": return .bool(x <= y)
                case ">": return .bool(x > y)
                case ">=": return .bool(x >= y)
                default: break
                }
            case (.string(let x), _):
                if op == "+" { return .string(x + b.text) }
                if case .string(let y) = b {
                    switch op {
                    case "<": return .bool(Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)))
                    case ">": return .bool(Array(y.utf8).lexicographicallyPrecedes(Array(x.utf8)))
                    case "<=": return .bool(!Array(y.utf8).lexicographicallyPrecedes(Array(x.utf8)))
                    case ">=": return .bool(!Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)))
                    default: break
                    }
                }
            case (.char(let c), .int(let y)):
                if op == "+" || op == "-", let u = Unicode.Scalar(UInt32(clamping: Int64(c.value) &+ (op == "+" ? y : 0 &- y))) { return .char(u) }
            case (.char(let x), .char(let y)):
                switch op {
                case "<": return .bool(x.value < y.value)
                case "<=": return .bool(x.value <= y.value)
                case ">": return .bool(x.value > y.value)
                case ">=": return .bool(x.value >= y.value)
                case "-": return .int(Int64(x.value) - Int64(y.value))
                default: break
                }
            case (.array(let x), .array(let y)):
                if op == "+" { return .array(ArrayBox(x.items + y.items)) }
            default: break
            }
            throw Failure(message: "invalid operation: \(a.typeName) \(op) \(b.typeName)", line: line)
        }
    }

    static func double(_ v: Value) -> Double {
        switch v {
        case .int(let i): Double(i)
        case .float(let f): f
        default: 0
        }
    }

    static func equal(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.undefined, .undefined): return true
        case (.int(let x), .int(let y)): return x == y
        case (.int, .float), (.float, .int), (.float, .float): return double(a) == double(b)
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.char(let x), .char(let y)): return x == y
        case (.char(let x), .int(let y)), (.int(let y), .char(let x)): return Int64(x.value) == y
        case (.array(let x), .array(let y)): return x.items.count == y.items.count && zip(x.items, y.items).allSatisfy { equal($0, $1) }
        case (.map(let x), .map(let y)):
            return x.items.count == y.items.count && x.items.allSatisfy { k, v in y.items[k].map { equal(v, $0) } ?? false }
        case (.error(let x), .error(let y)): return equal(x.value, y.value)
        case (.function(let x), .function(let y)): return x === y
        default: return false
        }
    }
}
