import Foundation

/// Tengo's builtin functions and the `text`, `fmt` and `math` modules (the ones Vale lets scripts
/// import), with Go's semantics: byte offsets, byte lengths.
extension Tengo {
    static func fail(_ m: String) -> Failure { Failure(message: m, line: 0) }
    /// The longest string `repeat` and `pad_*` make (bytes): a script's output, not its budget, could exhaust memory.
    static let maxString = 16 << 20

    static func string(_ v: Value, _ what: String) throws -> String {
        switch v {
        case .string(let s): return s
        case .char(let c): return String(Character(c))
        default: throw fail("\(what): want a string, got \(v.typeName)")
        }
    }

    static func int(_ v: Value, _ what: String) throws -> Int64 {
        switch v {
        case .int(let i): return i
        case .float(let f):
            guard let i = Int64(exactly: f.rounded(.towardZero)) else { throw fail("\(what): \(f) is not an int") }
            return i
        case .char(let c): return Int64(c.value)
        default: throw fail("\(what): want an int, got \(v.typeName)")
        }
    }

    static func arg(_ args: [Value], _ i: Int, _ name: String) throws -> Value {
        guard i < args.count else { throw fail("\(name): missing argument \(i + 1)") }
        return args[i]
    }

    static func strings(_ items: [String]) -> Value { .array(ArrayBox(items.map { .string($0) })) }

    static func builtin(_ name: String) -> Builtin? {
        switch name {
        case "len":
            return { a in
                switch try arg(a, 0, "len") {
                case .string(let s): return .int(Int64(s.utf8.count))
                case .array(let x): return .int(Int64(x.items.count))
                case .map(let m): return .int(Int64(m.items.count))
                case let v: throw fail("len: invalid argument type \(v.typeName)")
                }
            }
        case "append":
            return { a in
                guard case .array(let x) = try arg(a, 0, "append") else {
                    if case .undefined = a[0] { return .array(ArrayBox(Array(a.dropFirst()))) }
                    throw fail("append: want an array")
                }
                return .array(ArrayBox(x.items + a.dropFirst()))
            }
        case "copy": return { a in deepCopy(try arg(a, 0, "copy")) }
        case "string": return { a in .string(try arg(a, 0, "string").text) }
        case "int":
            return { a in
                switch try arg(a, 0, "int") {
                case .int(let i): return .int(i)
                case .float(let f): if let i = Int64(exactly: f.rounded(.towardZero)) { return .int(i) }
                case .char(let c): return .int(Int64(c.value))
                case .bool(let b): return .int(b ? 1 : 0)
                case .string(let s): if let i = Int64(s.trimmingCharacters(in: .whitespaces)) { return .int(i) }
                default: break
                }
                return a.count > 1 ? a[1] : .undefined
            }
        case "float":
            return { a in
                switch try arg(a, 0, "float") {
                case .int(let i): return .float(Double(i))
                case .float(let f): return .float(f)
                case .string(let s): if let d = Double(s) { return .float(d) }
                default: break
                }
                return a.count > 1 ? a[1] : .undefined
            }
        case "bool": return { a in .bool(try arg(a, 0, "bool").truthy) }
        case "char":
            return { a in
                switch try arg(a, 0, "char") {
                case .int(let i): if let u = Unicode.Scalar(UInt32(clamping: i)) { return .char(u) }
                case .char(let c): return .char(c)
                case .string(let s): if s.unicodeScalars.count == 1, let u = s.unicodeScalars.first { return .char(u) }
                default: break
                }
                return a.count > 1 ? a[1] : .undefined
            }
        case "type_name": return { a in .string(try arg(a, 0, "type_name").typeName) }
        case "is_error": return { a in if case .error = try arg(a, 0, "is_error") { return .bool(true) }; return .bool(false) }
        case "is_undefined": return { a in if case .undefined = try arg(a, 0, "is_undefined") { return .bool(true) }; return .bool(false) }
        case "is_string": return { a in if case .string = try arg(a, 0, "is_string") { return .bool(true) }; return .bool(false) }
        case "is_int": return { a in if case .int = try arg(a, 0, "is_int") { return .bool(true) }; return .bool(false) }
        case "is_float": return { a in if case .float = try arg(a, 0, "is_float") { return .bool(true) }; return .bool(false) }
        case "is_bool": return { a in if case .bool = try arg(a, 0, "is_bool") { return .bool(true) }; return .bool(false) }
        case "is_char": return { a in if case .char = try arg(a, 0, "is_char") { return .bool(true) }; return .bool(false) }
        case "is_array": return { a in if case .array = try arg(a, 0, "is_array") { return .bool(true) }; return .bool(false) }
        case "is_map": return { a in if case .map = try arg(a, 0, "is_map") { return .bool(true) }; return .bool(false) }
        case "is_function":
            return { a in
                switch try arg(a, 0, "is_function") { case .function, .builtin: return .bool(true); default: return .bool(false) }
            }
        case "delete":
            return { a in
                guard case .map(let m) = try arg(a, 0, "delete") else { throw fail("delete: want a map") }
                m.items[try arg(a, 1, "delete").text] = nil
                return .undefined
            }
        case "splice":
            return { a in
                guard case .array(let x) = try arg(a, 0, "splice") else { throw fail("splice: want an array") }
                let start = a.count > 1 ? Int(try int(a[1], "splice")) : 0
                let count = a.count > 2 ? Int(try int(a[2], "splice")) : x.items.count - start
                guard start >= 0, start <= x.items.count, count >= 0, start + count <= x.items.count else { throw fail("splice: index out of bounds") }
                let removed = Array(x.items[start..<(start + count)])
                x.items.replaceSubrange(start..<(start + count), with: a.count > 3 ? Array(a[3...]) : [])
                return .array(ArrayBox(removed))
            }
        case "format": return { a in .string(try sprintf(try string(try arg(a, 0, "format"), "format"), Array(a.dropFirst()))) }
        default: return nil
        }
    }

    static func deepCopy(_ v: Value) -> Value {
        switch v {
        case .array(let a): return .array(ArrayBox(a.items.map(deepCopy)))
        case .map(let m): return .map(MapBox(m.items.mapValues(deepCopy)))
        default: return v
        }
    }

    /// Go's `fmt.Sprintf` for the verbs scripts use: %s %v %d %f (with precision) %q %t %c %x %%.
    static func sprintf(_ format: String, _ args: [Value]) throws -> String {
        var out = ""
        var i = 0
        let chars = Array(format)
        var k = 0
        while k < chars.count {
            let c = chars[k]; k += 1
            guard c == "%", k < chars.count else { out.append(c); continue }
            var spec = ""
            while k < chars.count, "0123456789.-+ #".contains(chars[k]) { spec.append(chars[k]); k += 1 }
            guard k < chars.count else { break }
            let verb = chars[k]; k += 1
            if verb == "%" { out.append("%"); continue }
            guard i < args.count else { out += "%!\(verb)(MISSING)"; continue }
            let v = args[i]; i += 1
            switch verb {
            case "s", "v": out += v.text
            case "q": out += v.literal
            case "d": out += String(try int(v, "sprintf"))
            case "t": out += v.truthy ? "true" : "false"
            case "c": if case .char(let ch) = v { out += String(Character(ch)) } else { out += v.text }
            case "x": out += String(try int(v, "sprintf"), radix: 16)
            case "f", "g", "e": out += String(format: "%" + spec + String(verb), double(v))
            default: out += "%!\(verb)(\(v.typeName)=\(v.text))"
            }
        }
        return out
    }

    static func module(_ name: String) -> Value? {
        var m: [String: Value] = [:]
        func add(_ n: String, _ f: @escaping Builtin) { m[n] = .builtin("\(name).\(n)", f) }
        switch name {
        case "text": textModule(add)
        case "fmt":
            for n in ["print", "println", "printf"] { add(n) { _ in .undefined } }
            add("sprintf") { a in .string(try sprintf(try string(try arg(a, 0, "sprintf"), "sprintf"), Array(a.dropFirst()))) }
        case "math":
            m["pi"] = .float(Double.pi); m["e"] = .float(M_E)
            let unary: [(String, (Double) -> Double)] = [("abs", { abs($0) }), ("ceil", { $0.rounded(.up) }), ("floor", { $0.rounded(.down) }),
                                                        ("round", { $0.rounded() }), ("sqrt", { $0.squareRoot() }), ("log", { Foundation.log($0) }),
                                                        ("exp", { Foundation.exp($0) }), ("trunc", { $0.rounded(.towardZero) })]
            for (n, f) in unary { add(n) { a in .float(f(double(try arg(a, 0, n)))) } }
            add("pow") { a in .float(Foundation.pow(double(try arg(a, 0, "pow")), double(try arg(a, 1, "pow")))) }
            add("max") { a in .float(Swift.max(double(try arg(a, 0, "max")), double(try arg(a, 1, "max")))) }
            add("min") { a in .float(Swift.min(double(try arg(a, 0, "min")), double(try arg(a, 1, "min")))) }
        default: return nil
        }
        return .map(MapBox(m))
    }

    /// Go's `strings.Split` / `SplitAfter` with `n` (-1: all), on bytes.
    static func split(_ s: String, _ sep: String, after: Bool, n: Int) -> [String] {
        let b = Array(s.utf8), p = Array(sep.utf8)
        if n == 0 { return [] }
        if p.isEmpty {
            var parts = s.unicodeScalars.map { String($0) }
            if n > 0, parts.count > n { parts = Array(parts[..<(n - 1)]) + [String(decoding: Array(s.utf8)[parts[..<(n - 1)].reduce(0) { $0 + $1.utf8.count }...], as: UTF8.self)] }
            return parts
        }
        var out: [String] = []
        var start = 0
        var i = 0
        while i + p.count <= b.count {
            if n > 0 && out.count == n - 1 { break }
            if b[i..<(i + p.count)].elementsEqual(p) {
                out.append(String(decoding: b[start..<(after ? i + p.count : i)], as: UTF8.self))
                i += p.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(String(decoding: b[start...], as: UTF8.self))
        return out
    }

    static func byteIndex(_ s: String, _ sub: String, last: Bool = false) -> Int {
        let b = Array(s.utf8), p = Array(sub.utf8)
        if p.isEmpty { return last ? b.count : 0 }
        guard p.count <= b.count else { return -1 }
        let range = Array(0...(b.count - p.count))
        for i in (last ? range.reversed() : range) where b[i..<(i + p.count)].elementsEqual(p) { return i }
        return -1
    }

    /// A compiled pattern (Go's RE2 syntax, as Vale's rules write it) and its matches in byte offsets.
    struct GoRegex {
        let re: NSRegularExpression
        init(_ pattern: String) throws {
            do { re = try ValeRegex.foundation(pattern) } catch { throw fail("invalid regular expression: \(pattern)") }
        }
        /// Each match's groups as byte ranges (nil for a group that did not take part).
        func matches(_ s: String, limit: Int = -1) -> [[Range<Int>?]] {
            let u16 = Array(s.utf16)
            var byteAt = [Int](repeating: 0, count: u16.count + 1)
            var b = 0, k = 0
            for scalar in s.unicodeScalars {
                let w = scalar.utf16.count, n = scalar.utf8.count
                for j in 0..<w { byteAt[k + j] = b }
                k += w; b += n
            }
            byteAt[u16.count] = b
            var out: [[Range<Int>?]] = []
            for m in re.matches(in: s, range: NSRange(location: 0, length: u16.count)) {
                if limit >= 0 && out.count >= limit { break }
                var groups: [Range<Int>?] = []
                for g in 0..<m.numberOfRanges {
                    let r = m.range(at: g)
                    groups.append(r.location == NSNotFound ? nil : byteAt[r.location]..<byteAt[r.location + r.length])
                }
                out.append(groups)
            }
            return out
        }
        func replace(_ s: String, _ template: String) -> String {
            re.stringByReplacingMatches(in: s, range: NSRange(location: 0, length: (s as NSString).length),
                                        withTemplate: template.replacingOccurrences(of: "${", with: "$").replacingOccurrences(of: "}", with: ""))
        }
        func split(_ s: String, _ n: Int) -> [String] {
            let b = Array(s.utf8)
            var out: [String] = []
            var start = 0
            for m in matches(s) {
                if n > 0 && out.count == n - 1 { break }
                guard let r = m[0] else { continue }
                if r.isEmpty && r.lowerBound == 0 { continue }
                out.append(String(decoding: b[start..<r.lowerBound], as: UTF8.self))
                start = r.upperBound
            }
            out.append(String(decoding: b[start...], as: UTF8.self))
            return out
        }
    }

    static func findValue(_ re: GoRegex, _ s: String, _ limit: Int) -> Value {
        let b = Array(s.utf8)
        let found = re.matches(s, limit: limit)
        if found.isEmpty { return .undefined }
        return .array(ArrayBox(found.map { groups in
            .array(ArrayBox(groups.map { r in
                guard let r else { return .map(MapBox(["text": .string(""), "begin": .int(-1), "end": .int(-1)])) }
                return .map(MapBox(["text": .string(String(decoding: b[r], as: UTF8.self)), "begin": .int(Int64(r.lowerBound)),
                                    "end": .int(Int64(r.upperBound))]))
            }))
        }))
    }

    static func textModule(_ add: (String, @escaping Builtin) -> Void) {
        func s(_ a: [Value], _ i: Int, _ n: String) throws -> String { try string(try arg(a, i, n), n) }
        func optInt(_ a: [Value], _ i: Int, _ dflt: Int) throws -> Int { i < a.count ? Int(try int(a[i], "text")) : dflt }
        add("re_match") { a in .bool(!(try GoRegex(try s(a, 0, "re_match")).matches(try s(a, 1, "re_match"), limit: 1)).isEmpty) }
        add("re_find") { a in findValue(try GoRegex(try s(a, 0, "re_find")), try s(a, 1, "re_find"), try optInt(a, 2, -1)) }
        add("re_replace") { a in .string(try GoRegex(try s(a, 0, "re_replace")).replace(try s(a, 1, "re_replace"), try s(a, 2, "re_replace"))) }
        add("re_split") { a in strings(try GoRegex(try s(a, 0, "re_split")).split(try s(a, 1, "re_split"), try optInt(a, 2, -1))) }
        add("re_compile") { a in
            let re = try GoRegex(try s(a, 0, "re_compile"))
            var m: [String: Value] = [:]
            m["match"] = .builtin("match") { b in .bool(!re.matches(try s(b, 0, "match"), limit: 1).isEmpty) }
            m["find"] = .builtin("find") { b in findValue(re, try s(b, 0, "find"), try optInt(b, 1, -1)) }
            m["replace"] = .builtin("replace") { b in .string(re.replace(try s(b, 0, "replace"), try s(b, 1, "replace"))) }
            m["split"] = .builtin("split") { b in strings(re.split(try s(b, 0, "split"), try optInt(b, 1, -1))) }
            return .map(MapBox(m))
        }
        add("compare") { a in
            let x = Array(try s(a, 0, "compare").utf8), y = Array(try s(a, 1, "compare").utf8)
            return .int(x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1)
        }
        add("contains") { a in .bool(byteIndex(try s(a, 0, "contains"), try s(a, 1, "contains")) >= 0) }
        add("contains_any") { a in
            let chars = Set(try s(a, 1, "contains_any").unicodeScalars)
            return .bool(try s(a, 0, "contains_any").unicodeScalars.contains { chars.contains($0) })
        }
        add("count") { a in
            let str = try s(a, 0, "count"), sub = try s(a, 1, "count")
            if sub.isEmpty { return .int(Int64(str.unicodeScalars.count + 1)) }
            return .int(Int64(split(str, sub, after: false, n: -1).count - 1))
        }
        add("equal_fold") { a in .bool(try s(a, 0, "equal_fold").lowercased() == (try s(a, 1, "equal_fold")).lowercased()) }
        add("fields") { a in strings(try s(a, 0, "fields").split(whereSeparator: { $0.isWhitespace }).map(String.init)) }
        add("has_prefix") { a in .bool(Array(try s(a, 0, "has_prefix").utf8).starts(with: Array(try s(a, 1, "has_prefix").utf8))) }
        add("has_suffix") { a in
            let x = Array(try s(a, 0, "has_suffix").utf8), y = Array(try s(a, 1, "has_suffix").utf8)
            return .bool(x.count >= y.count && x[(x.count - y.count)...].elementsEqual(y))
        }
        add("index") { a in .int(Int64(byteIndex(try s(a, 0, "index"), try s(a, 1, "index")))) }
        add("last_index") { a in .int(Int64(byteIndex(try s(a, 0, "last_index"), try s(a, 1, "last_index"), last: true))) }
        add("index_any") { a in
            let str = try s(a, 0, "index_any"), chars = Set(try s(a, 1, "index_any").unicodeScalars)
            var b = 0
            for u in str.unicodeScalars { if chars.contains(u) { return .int(Int64(b)) }; b += u.utf8.count }
            return .int(-1)
        }
        add("join") { a in
            guard case .array(let x) = try arg(a, 0, "join") else { throw fail("join: want an array") }
            return .string(try x.items.map { try string($0, "join") }.joined(separator: try s(a, 1, "join")))
        }
        add("repeat") { a in
            let str = try s(a, 0, "repeat"), n = max(0, try optInt(a, 1, 0))
            guard str.utf8.count.multipliedReportingOverflow(by: n).partialValue <= maxString, n <= maxString else { throw fail("repeat: the result is too long") }
            return .string(String(repeating: str, count: n))
        }
        add("replace") { a in
            let str = try s(a, 0, "replace"), old = try s(a, 1, "replace"), new = try s(a, 2, "replace")
            let n = try optInt(a, 3, -1)
            if old.isEmpty || n == 0 { return .string(str) }
            let parts = split(str, old, after: false, n: n < 0 ? -1 : n + 1)
            return .string(parts.joined(separator: new))
        }
        add("substr") { a in
            let sc = Array(try s(a, 0, "substr").unicodeScalars)
            let lo = try optInt(a, 1, 0), hi = try optInt(a, 2, sc.count)
            guard lo >= 0, lo <= hi, hi <= sc.count else { throw fail("substr: index out of bounds") }
            return .string(String(String.UnicodeScalarView(sc[lo..<hi])))
        }
        add("split") { a in strings(split(try s(a, 0, "split"), try s(a, 1, "split"), after: false, n: -1)) }
        add("split_after") { a in strings(split(try s(a, 0, "split_after"), try s(a, 1, "split_after"), after: true, n: -1)) }
        add("split_n") { a in strings(split(try s(a, 0, "split_n"), try s(a, 1, "split_n"), after: false, n: try optInt(a, 2, -1))) }
        add("split_after_n") { a in strings(split(try s(a, 0, "split_after_n"), try s(a, 1, "split_after_n"), after: true, n: try optInt(a, 2, -1))) }
        add("to_lower") { a in .string(try s(a, 0, "to_lower").lowercased()) }
        add("to_upper") { a in .string(try s(a, 0, "to_upper").uppercased()) }
        add("title") { a in .string(try s(a, 0, "title").capitalized) }
        add("to_title") { a in .string(try s(a, 0, "to_title").uppercased()) }
        add("trim_space") { a in .string(try s(a, 0, "trim_space").trimmingCharacters(in: .whitespacesAndNewlines)) }
        add("trim") { a in .string(try s(a, 0, "trim").trimmingCharacters(in: CharacterSet(charactersIn: try s(a, 1, "trim")))) }
        add("trim_left") { a in
            let cut = Set(try s(a, 1, "trim_left").unicodeScalars)
            return .string(String(String.UnicodeScalarView(try s(a, 0, "trim_left").unicodeScalars.drop { cut.contains($0) })))
        }
        add("trim_right") { a in
            let cut = Set(try s(a, 1, "trim_right").unicodeScalars)
            var sc = Array(try s(a, 0, "trim_right").unicodeScalars)
            while let l = sc.last, cut.contains(l) { sc.removeLast() }
            return .string(String(String.UnicodeScalarView(sc)))
        }
        add("trim_prefix") { a in
            let str = try s(a, 0, "trim_prefix"), p = try s(a, 1, "trim_prefix")
            let b = Array(str.utf8), pb = Array(p.utf8)
            return .string(b.starts(with: pb) ? String(decoding: b[pb.count...], as: UTF8.self) : str)
        }
        add("trim_suffix") { a in
            let str = try s(a, 0, "trim_suffix"), p = try s(a, 1, "trim_suffix")
            let b = Array(str.utf8), pb = Array(p.utf8)
            return .string(b.count >= pb.count && b[(b.count - pb.count)...].elementsEqual(pb)
                           ? String(decoding: b[..<(b.count - pb.count)], as: UTF8.self) : str)
        }
        add("pad_left") { a in
            let str = try s(a, 0, "pad_left"), n = min(try optInt(a, 1, 0), maxString), pad = a.count > 2 ? try s(a, 2, "pad_left") : " "
            var out = str
            while out.unicodeScalars.count < n, !pad.isEmpty { out = pad + out }
            return .string(out)
        }
        add("pad_right") { a in
            let str = try s(a, 0, "pad_right"), n = min(try optInt(a, 1, 0), maxString), pad = a.count > 2 ? try s(a, 2, "pad_right") : " "
            var out = str
            while out.unicodeScalars.count < n, !pad.isEmpty { out += pad }
            return .string(out)
        }
        add("atoi") { a in
            let str = try s(a, 0, "atoi")
            if let i = Int64(str) { return .int(i) }
            return .error(Value.Box(.string("strconv.Atoi: parsing \"\(str)\": invalid syntax")))
        }
        add("itoa") { a in .string(String(try int(try arg(a, 0, "itoa"), "itoa"))) }
        add("parse_int") { a in
            let str = try s(a, 0, "parse_int"), base = try optInt(a, 1, 10)
            guard base == 0 || (2...36).contains(base) else { throw fail("parse_int: invalid base \(base)") }
            if let i = Int64(str, radix: base == 0 ? 10 : base) { return .int(i) }
            return .error(Value.Box(.string("strconv.ParseInt: parsing \"\(str)\": invalid syntax")))
        }
        add("parse_float") { a in
            let str = try s(a, 0, "parse_float")
            if let d = Double(str) { return .float(d) }
            return .error(Value.Box(.string("strconv.ParseFloat: parsing \"\(str)\": invalid syntax")))
        }
        add("parse_bool") { a in
            switch try s(a, 0, "parse_bool") {
            case "1", "t", "T", "true", "TRUE", "True": return .bool(true)
            case "0", "f", "F", "false", "FALSE", "False": return .bool(false)
            case let str: return .error(Value.Box(.string("strconv.ParseBool: parsing \"\(str)\": invalid syntax")))
            }
        }
        add("format_int") { a in
            let base = try optInt(a, 1, 10)
            guard (2...36).contains(base) else { throw fail("format_int: invalid base \(base)") }
            return .string(String(try int(try arg(a, 0, "format_int"), "format_int"), radix: base))
        }
        add("format_bool") { a in .string(try arg(a, 0, "format_bool").truthy ? "true" : "false") }
        add("format_float") { a in
            let f = double(try arg(a, 0, "format_float"))
            let verb = a.count > 1 ? try s(a, 1, "format_float") : "f"
            let prec = try optInt(a, 2, -1)
            return .string(prec < 0 ? formatFloat(f) : String(format: "%.\(prec)" + verb, f))
        }
        add("quote") { a in .string(Value.string(try s(a, 0, "quote")).literal) }
        add("unquote") { a in
            var str = try s(a, 0, "unquote")
            if str.count >= 2, (str.hasPrefix("\"") && str.hasSuffix("\"")) || (str.hasPrefix("`") && str.hasSuffix("`")) {
                str = String(str.dropFirst().dropLast())
            }
            return .string(str)
        }
    }
}
