/// `check --format json` without `JSONEncoder`: the same bytes as `JSON.encode(report)` (pretty,
/// keys sorted, slashes as they are), written directly. Encoding a chapter's thousand findings
/// through `Codable` took as long as linting it with the heuristics.
/// `CheckReportJSONTests` compares the two on every kind of character.
extension CheckReport {
    /// How many findings of one file make it worth writing the second half on another thread.
    static let parallelFindings = 512

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
            let n = f.findings.count
            // A long list's second half is written on another thread meanwhile (the report is the
            // last thing `check` does, on one core): the same bytes, at the same depth.
            let half = n >= Self.parallelFindings ? n / 2 : n
            let findings = f.findings, depth = w.depth
            let second = half < n ? Background { () -> [UInt8] in
                var v = PrettyJSON(reserving: (n - half) * 320)
                v.depth = depth
                for j in half..<n { v.element(first: false); v.finding(findings[j]) }
                return v.out
            } : nil
            for j in 0..<half {
                w.element(first: j == 0)
                w.finding(findings[j])
            }
            if let second { w.out.append(contentsOf: second.value) }
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

    init(reserving bytes: Int = 1 << 16) { out.reserveCapacity(bytes) }

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

    /// A key: one of the report's own names, which need no escape (its bytes copied as they are).
    mutating func key(_ k: StaticString, first: Bool) {
        if !first { out.append(44) }
        newline()
        out.append(34)
        k.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(34); out.append(32); out.append(58); out.append(32)   // `" : `
    }

    mutating func element(first: Bool) {
        if !first { out.append(44) }
        newline()
    }

    mutating func int(_ n: Int) {
        if n >= 0 && n < 10 { out.append(48 + UInt8(n)); return }
        // The digits written from the end of a small buffer (no String made for each number).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
            var v = n.magnitude
            var i = buf.count
            repeat {
                i -= 1
                buf[i] = 48 + UInt8(v % 10)
                v /= 10
            } while v > 0
            if n < 0 { i -= 1; buf[i] = 45 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i...]))
        }
    }

    mutating func string(_ s: String) {
        out.append(34)
        var s = s
        s.withUTF8 { bytes in
            // Runs that need no escape are copied whole.
            var start = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b >= 32 && b != 34 && b != 92 { continue }
                if start < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i])) }
                escape(b)
                start = i + 1
            }
            if start < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
        }
        out.append(34)
    }

    /// A byte JSON escapes (a quote, a backslash or a control character), as Foundation writes it.
    private mutating func escape(_ b: UInt8) {
        switch b {
        case 34: out.append(contentsOf: [92, 34])
        case 92: out.append(contentsOf: [92, 92])
        case 8: out.append(contentsOf: [92, 98])
        case 12: out.append(contentsOf: [92, 102])
        case 10: out.append(contentsOf: [92, 110])
        case 13: out.append(contentsOf: [92, 114])
        case 9: out.append(contentsOf: [92, 116])
        default:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { h in out.append(contentsOf: [92, 117, 48, 48, h[Int(b >> 4)], h[Int(b & 15)]]) }
        }
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
