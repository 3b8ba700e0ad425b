import Foundation

/// A small HTML tokenizer with the token kinds of Go's `x/net/html` that Vale's walker reads.
struct ValeHTMLToken {
    enum Kind { case text, start, end, comment }
    var kind: Kind
    /// Tag name (lowercased), comment body or unescaped text.
    var data: String
    var attrs: [(String, String)] = []
    func attr(_ k: String) -> String { attrs.first(where: { $0.0 == k })?.1 ?? "" }
}

enum ValeHTML {
    static func tokenize(_ html: String) -> [ValeHTMLToken] {
        let b = Array(html.utf8)
        var out: [ValeHTMLToken] = []
        var i = 0
        var textStart = 0
        func flushText(_ end: Int) {
            if end > textStart { out.append(ValeHTMLToken(kind: .text, data: unescape(VB.str(b[textStart..<end])))) }
        }
        while i < b.count {
            guard b[i] == 60 /* < */, i + 1 < b.count else { i += 1; continue }
            let n = b[i + 1]
            if n == 33 /* ! */ {
                if i + 3 < b.count, b[i + 2] == 45, b[i + 3] == 45 {
                    flushText(i)
                    let bodyStart = i + 4
                    var j = bodyStart
                    var end = b.count, next = b.count
                    while j + 2 < b.count + 0 {
                        if b[j] == 45, b[j + 1] == 45, b[j + 2] == 62 { end = j; next = j + 3; break }
                        j += 1
                    }
                    out.append(ValeHTMLToken(kind: .comment, data: VB.str(b[bodyStart..<min(end, b.count)])))
                    i = next; textStart = i; continue
                }
                // doctype / CDATA: skip to '>'
                flushText(i)
                var j = i; while j < b.count, b[j] != 62 { j += 1 }
                i = j + 1; textStart = i; continue
            }
            let isEnd = n == 47
            let nameStart = isEnd ? i + 2 : i + 1
            guard nameStart < b.count, isAlpha(b[nameStart]) else { i += 1; continue }
            flushText(i)
            var j = nameStart
            while j < b.count, !isSpace(b[j]), b[j] != 62, b[j] != 47 { j += 1 }
            let name = VB.str(b[nameStart..<j]).lowercased()
            var attrs: [(String, String)] = []
            // attributes
            while j < b.count, b[j] != 62 {
                if isSpace(b[j]) || b[j] == 47 { j += 1; continue }
                let ks = j
                while j < b.count, !isSpace(b[j]), b[j] != 61, b[j] != 62, b[j] != 47 { j += 1 }
                let key = VB.str(b[ks..<j]).lowercased()
                while j < b.count, isSpace(b[j]) { j += 1 }
                var val = ""
                if j < b.count, b[j] == 61 {
                    j += 1
                    while j < b.count, isSpace(b[j]) { j += 1 }
                    if j < b.count, b[j] == 34 || b[j] == 39 {
                        let q = b[j]; j += 1; let vs = j
                        while j < b.count, b[j] != q { j += 1 }
                        val = VB.str(b[vs..<min(j, b.count)]); j += 1
                    } else {
                        let vs = j
                        while j < b.count, !isSpace(b[j]), b[j] != 62 { j += 1 }
                        val = VB.str(b[vs..<j])
                    }
                }
                if !key.isEmpty { attrs.append((key, unescape(val))) }
            }
            i = j + 1
            textStart = i
            out.append(ValeHTMLToken(kind: isEnd ? .end : .start, data: name, attrs: attrs))
            if !isEnd, name == "script" || name == "style" {
                // Raw text up to the end tag.
                let close = Array("</\(name)".utf8)
                let k = VB.index(b, close, from: i) ?? b.count
                if k > i { out.append(ValeHTMLToken(kind: .text, data: VB.str(b[i..<k]))) }
                i = k; textStart = i
            }
        }
        flushText(b.count)
        return out
    }

    static func isAlpha(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
    static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 || c == 12 }

    static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "copy": "©", "reg": "®",
        "mdash": "—", "ndash": "–", "hellip": "…", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "trade": "™",
    ]

    static func unescape(_ s: String) -> String {
        guard VB.contains(s, byte: 38) else { return s }   // no `&`
        var out = ""
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == "&", let semi = s[i...].prefix(12).firstIndex(of: ";") {
                let name = s[s.index(after: i)..<semi]
                var rep: String?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    if let v = UInt32(name.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) { rep = String(Character(u)) }
                } else if name.hasPrefix("#") {
                    if let v = UInt32(name.dropFirst()), let u = Unicode.Scalar(v) { rep = String(Character(u)) }
                } else { rep = entities[String(name)] }
                if let rep { out += rep; i = s.index(after: semi); continue }
            }
            out.append(c)
            i = s.index(after: i)
        }
        return out
    }
}
