/// How `tk-agent search` prints results: `--json` or coloured text. Shared by the quick path and
/// the full CLI so both print the same bytes.
public enum SearchOutput {
    /// `search --json`: pretty, key-sorted, in the layout of the rest of the CLI's JSON.
    public static func json(_ r: SearchResults) -> String {
        var w = JSONWriter()
        w.object { w in
            w.key("query") { $0.string(r.query) }
            w.key("results") { w in
                w.array(r.results) { w, hit in
                    w.object { w in
                        w.key("highlights") { w in w.array(hit.highlights) { w, range in w.array(range) { $0.int($1) } } }
                        w.key("line") { $0.int(hit.line) }
                        w.key("path") { $0.string(hit.path) }
                        w.key("project") { $0.string(hit.project) }
                        w.key("score") { $0.double(hit.score) }
                        w.key("snippet") { $0.string(hit.snippet) }
                        w.key("title") { $0.string(hit.title) }
                    }
                }
            }
            w.key("took_ms") { $0.double(r.tookMs) }
        }
        return w.output
    }

    /// The text form: per hit, the bold title and dim `project/path:line`, then the indented
    /// snippet with the matches in bold yellow when `color`.
    public static func text(_ r: SearchResults, color: Bool) -> String {
        var out = ""
        for hit in r.results {
            let loc = "\(hit.project)/\(hit.path):\(hit.line)"
            out += color ? "\u{1B}[1m\(hit.title)\u{1B}[0m  \u{1B}[2m\(loc)\u{1B}[0m\n" : "\(hit.title)  \(loc)\n"
            out += "    " + highlight(hit.snippet, hit.highlights, color: color) + "\n"
        }
        return out
    }

    /// The line for standard error after the results: "N results in T ms".
    public static func summary(_ r: SearchResults) -> String {
        let tenths = Int((r.tookMs * 10).rounded())
        return "\(r.results.count) result\(r.results.count == 1 ? "" : "s") in \(tenths / 10).\(tenths % 10) ms"
    }

    static func highlight(_ text: String, _ ranges: [[Int]], color: Bool) -> String {
        guard color, !ranges.isEmpty else { return text }
        var scalars = Array(text.unicodeScalars)
        for r in ranges.reversed() where r.count == 2 && r[0] >= 0 && r[1] <= scalars.count && r[0] < r[1] {
            scalars.insert(contentsOf: "\u{1B}[0m".unicodeScalars, at: r[1])
            scalars.insert(contentsOf: "\u{1B}[1;33m".unicodeScalars, at: r[0])
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}

/// A minimal pretty JSON writer (two-space indent, `"key" : value`), the layout Foundation's
/// `JSONEncoder` uses with `.prettyPrinted`, without Foundation.
struct JSONWriter {
    private(set) var output = ""
    private var depth = 0
    private var first = true

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        output += "{"
        depth += 1
        first = true
        body(&self)
        depth -= 1
        if !first { newline() }
        output += "}"
        first = false
    }

    mutating func key(_ name: String, _ value: (inout JSONWriter) -> Void) {
        if !first { output += "," }
        newline()
        string(name)
        output += " : "
        first = true
        value(&self)
        first = false
    }

    mutating func array<T>(_ items: [T], _ element: (inout JSONWriter, T) -> Void) {
        output += "["
        depth += 1
        var wrote = false
        for item in items {
            if wrote { output += "," }
            newline()
            first = true
            element(&self, item)
            wrote = true
        }
        depth -= 1
        if wrote { newline() }
        output += "]"
        first = false
    }

    mutating func int(_ v: Int) { output += String(v) }

    /// Integral values print without a fraction (`3`, not `3.0`), as JSONEncoder does.
    mutating func double(_ v: Double) {
        if !v.isFinite { output += "0"; return }
        if v == v.rounded(), abs(v) < 1e15 { output += String(Int64(v)); return }
        output += String(v)
    }

    mutating func string(_ s: String) {
        output += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(u)
                }
            }
        }
        output += "\""
    }

    private mutating func newline() {
        output += "\n" + String(repeating: "  ", count: depth)
    }
}
