/// `check --format json` without `JSONEncoder`: the same bytes as `JSON.encode(report)` (pretty,
/// keys sorted, slashes as they are), written directly. Encoding a chapter's thousand findings
/// through `Codable` took as long as linting it with the heuristics.
/// `CheckReportJSONTests` compares the two on every kind of character.
extension CheckReport {
    public func jsonBytes() -> [UInt8] {
        var w = PrettyJSON()
        w.open("{")
        w.key("files", first: true)
        w.open("[")
        if files.isEmpty { w.out.append(10) }
        for (i, f) in files.enumerated() {
            w.element(first: i == 0)
            w.open("{")
            w.key("findings", first: true)
            w.open("[")
            if f.findings.isEmpty { w.out.append(10) }
            for (j, x) in f.findings.enumerated() {
                w.element(first: j == 0)
                w.finding(x)
            }
            w.close("]")
            w.key("path", first: false); w.string(f.path)
            if let s = f.skipped { w.key("skipped", first: false); w.string(s) }
            w.close("}")
        }
        w.close("]")
        w.key("schema", first: false); w.string(schema)
        w.close("}")
        w.out.append(10)
        return w.out
    }
}

/// Foundation's pretty printing: two spaces a level, `"key" : value`, an empty array as `[`, an
/// empty line, `]`.
struct PrettyJSON {
    var out: [UInt8] = []
    var depth = 0

    init() { out.reserveCapacity(1 << 16) }

    mutating func newline() {
        out.append(10)
        out.append(contentsOf: repeatElement(32, count: depth * 2))
    }

    mutating func open(_ c: Unicode.Scalar) { out.append(UInt8(ascii: c)); depth += 1 }

    mutating func close(_ c: Unicode.Scalar) {
        depth -= 1
        newline()
        out.append(UInt8(ascii: c))
    }

    mutating func key(_ k: String, first: Bool) {
        if !first { out.append(44) }
        newline()
        string(k)
        out.append(contentsOf: [32, 58, 32])   // " : "
    }

    mutating func element(first: Bool) {
        if !first { out.append(44) }
        newline()
    }

    mutating func int(_ n: Int) { out.append(contentsOf: String(n).utf8) }

    mutating func string(_ s: String) {
        out.append(34)
        for b in s.utf8 {
            switch b {
            case 34: out.append(contentsOf: [92, 34])
            case 92: out.append(contentsOf: [92, 92])
            case 8: out.append(contentsOf: [92, 98])
            case 12: out.append(contentsOf: [92, 102])
            case 10: out.append(contentsOf: [92, 110])
            case 13: out.append(contentsOf: [92, 114])
            case 9: out.append(contentsOf: [92, 116])
            case 0..<32:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, 117, 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(34)
    }

    mutating func finding(_ x: Finding) {
        open("{")
        key("category", first: true); string(x.category.rawValue)
        key("column", first: false); int(x.column)
        key("end", first: false); int(x.end)
        key("id", first: false); string(x.id)
        key("line", first: false); int(x.line)
        key("message", first: false); string(x.message)
        key("replacements", first: false)
        open("[")
        if x.replacements.isEmpty { out.append(10) } else {
            for (i, r) in x.replacements.enumerated() { element(first: i == 0); string(r) }
        }
        close("]")
        key("rule", first: false); string(x.rule)
        key("severity", first: false); string(x.severity.rawValue)
        key("start", first: false); int(x.start)
        key("text", first: false); string(x.text)
        close("}")
    }
}
