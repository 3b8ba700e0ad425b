/// Finds the parts of a paragraph or heading that are not prose: inline code, autolinks and bare
/// URLs, link targets and reference labels, inline HTML and comments, container prefixes on
/// continuation lines (`>` and indentation), heading markers and task-list boxes.
///
/// A byte-level approximation of CommonMark's inline rules that errs on the side of masking.
struct InlineScanner {
    let bytes: [UInt8]
    let range: Range<Int>
    private(set) var masks: [ProseBlock.Mask] = []
    private(set) var comments: [Range<Int>] = []
    /// Start of the region still to scan (heading markers may move it).
    private var from: Int
    /// End of the region to scan (a closing ATX sequence or setext underline may move it).
    private var to: Int

    init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.range = range
        from = range.lowerBound
        to = min(range.upperBound, bytes.count)
    }

    private mutating func mask(_ lo: Int, _ hi: Int, _ kind: ProseBlock.MaskKind) {
        guard hi > lo else { return }
        if let last = masks.last, last.range.upperBound >= lo, last.kind == kind {
            masks[masks.count - 1].range = last.range.lowerBound..<max(hi, last.range.upperBound)
        } else {
            masks.append(ProseBlock.Mask(lo..<hi, kind))
        }
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 }

    /// ATX: `## Title ##` → masks the leading and closing `#` runs. Setext: masks the underline line.
    mutating func maskHeadingMarkers() {
        if from < to, bytes[from] == 35 {
            var i = from
            while i < to, bytes[i] == 35 { i += 1 }
            while i < to, isSpace(bytes[i]) { i += 1 }
            mask(from, i, .markup)
            from = i
            // Closing sequence: spaces then #s at the end.
            var e = to
            while e > from, isSpace(bytes[e - 1]) { e -= 1 }
            var h = e
            while h > from, bytes[h - 1] == 35 { h -= 1 }
            if h < e, h == from || isSpace(bytes[h - 1]) {
                var s = h
                while s > from, isSpace(bytes[s - 1]) { s -= 1 }
                trailingMask = s..<to
                to = s
            }
        } else {
            // Setext: the last line is `===` or `---`.
            var lineStart = to
            while lineStart > from, bytes[lineStart - 1] != 10 { lineStart -= 1 }
            if lineStart > from {
                var k = lineStart
                while k < to, isSpace(bytes[k]) || bytes[k] == 62 { k += 1 }
                if k < to, bytes[k] == 61 || bytes[k] == 45 {
                    let c = bytes[k]
                    var j = k
                    while j < to, bytes[j] == c || isSpace(bytes[j]) || bytes[j] == 13 { j += 1 }
                    if j == to {
                        var textEnd = lineStart - 1   // the newline before the underline
                        if textEnd > from, bytes[textEnd - 1] == 13 { textEnd -= 1 }
                        trailingMask = textEnd..<to
                        to = textEnd
                    }
                }
            }
        }
    }

    private var trailingMask: Range<Int>?

    /// `[ ]` / `[x]` at the start of a list item paragraph.
    mutating func maskTaskBox() {
        if to - from >= 3, bytes[from] == 91, bytes[from + 2] == 93,
           bytes[from + 1] == 32 || bytes[from + 1] == 120 || bytes[from + 1] == 88,
           to - from == 3 || isSpace(bytes[from + 3]) {
            mask(from, from + 3, .markup)
            from += 3
        }
    }

    mutating func scan() {
        var i = from
        var lineStart = true
        // A link reference definition on the first line.
        if maskReferenceDefinition(at: &i) {}
        lineStart = false
        while i < to {
            let b = bytes[i]
            if lineStart {
                lineStart = false
                var k = i
                while k < to, isSpace(bytes[k]) || bytes[k] == 62 { k += 1 }
                mask(i, k, .markup)
                i = k
                if maskReferenceDefinition(at: &i) {}
                continue
            }
            switch b {
            case 10:
                i += 1
                lineStart = true
            case 92:   // backslash escape
                i += 2
            case 96:   // code span
                var n = 0
                while i + n < to, bytes[i + n] == 96 { n += 1 }
                if let close = closingBackticks(from: i + n, count: n) {
                    mask(i, close + n, .code)
                    i = close + n
                } else {
                    i += n
                }
            case 60:   // < : comment, autolink, HTML tag
                if let e = htmlComment(at: i) {
                    mask(i, e, .html)
                    comments.append(i..<e)
                    i = e
                } else if let e = autolink(at: i) {
                    mask(i, e, .url)
                    i = e
                } else if let e = htmlTag(at: i) {
                    mask(i, e, .html)
                    i = e
                } else {
                    i += 1
                }
            case 93:   // ] followed by ( or [
                if i + 1 < to, bytes[i + 1] == 40, let close = closingParen(from: i + 2) {
                    mask(i + 1, close + 1, .link)
                    i = close + 1
                } else if i + 1 < to, bytes[i + 1] == 91, let close = firstByte(93, from: i + 2, stopAtBlankLine: true) {
                    mask(i + 1, close + 1, .link)
                    i = close + 1
                } else {
                    i += 1
                }
            case 104, 72, 119, 87, 102, 70, 109, 77:   // h w f m: bare URL / www. / mailto:
                // Most are letters inside a word, which start no URL: passed over without a call.
                if i > range.lowerBound, TextClass.isASCIIWordByte(bytes[i - 1]) {
                    i += 1
                } else if let e = bareURL(at: i) {
                    mask(i, e, .url)
                    i = e
                } else {
                    i += 1
                }
            default:
                i += 1
            }
        }
        if let t = trailingMask { mask(t.lowerBound, t.upperBound, .markup) }
    }

    /// `[label]: destination "title"` at the start of a line → masks the whole line.
    private mutating func maskReferenceDefinition(at i: inout Int) -> Bool {
        guard i < to, bytes[i] == 91 else { return false }
        var k = i + 1
        while k < to, bytes[k] != 93, bytes[k] != 10 { k += 1 }
        guard k + 1 < to, bytes[k] == 93, bytes[k + 1] == 58, k > i + 1 else { return false }
        var e = k
        while e < to, bytes[e] != 10 { e += 1 }
        mask(i, e, .link)
        i = e
        return true
    }

    private func closingBackticks(from start: Int, count n: Int) -> Int? {
        var i = start
        while i < to {
            if bytes[i] == 96 {
                var m = 0
                while i + m < to, bytes[i + m] == 96 { m += 1 }
                if m == n { return i }
                i += m
            } else {
                i += 1
            }
        }
        return nil
    }

    private func htmlComment(at i: Int) -> Int? {
        guard i + 4 <= to, bytes[i + 1] == 33, bytes[i + 2] == 45, bytes[i + 3] == 45 else { return nil }
        if let c = DocumentBytes.find(bytes, [45, 45, 62], from: i + 4, to: to) { return c + 3 }
        return nil
    }

    /// `<scheme:…>` or `<user@host>`.
    private func autolink(at i: Int) -> Int? {
        var k = i + 1
        var sawColonOrAt = false
        while k < to {
            let c = bytes[k]
            if c == 62 { return sawColonOrAt && k > i + 2 ? k + 1 : nil }
            if c == 32 || c == 10 || c == 60 || c == 9 { return nil }
            if c == 58 || c == 64 { sawColonOrAt = true }
            k += 1
        }
        return nil
    }

    /// `<tag …>`, `</tag>`, `<!…>`, `<?…?>`.
    private func htmlTag(at i: Int) -> Int? {
        guard i + 2 < to else { return nil }
        let c = bytes[i + 1]
        let isLetter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
        let isClose = c == 47 && i + 2 < to && ((bytes[i + 2] >= 65 && bytes[i + 2] <= 90) || (bytes[i + 2] >= 97 && bytes[i + 2] <= 122))
        guard isLetter || isClose || c == 33 || c == 63 else { return nil }
        var k = i + 1
        var quote: UInt8 = 0
        while k < to {
            let b = bytes[k]
            if quote != 0 {
                if b == quote { quote = 0 }
            } else if b == 34 || b == 39 {
                quote = b
            } else if b == 62 {
                return k + 1
            } else if b == 60 {
                return nil
            }
            k += 1
        }
        return nil
    }

    private func closingParen(from start: Int) -> Int? {
        var depth = 0
        var i = start
        while i < to {
            let b = bytes[i]
            if b == 92 { i += 2; continue }
            if b == 40 { depth += 1 }
            if b == 41 {
                if depth == 0 { return i }
                depth -= 1
            }
            if b == 10, i + 1 < to, bytes[i + 1] == 10 { return nil }
            i += 1
        }
        return nil
    }

    private func firstByte(_ target: UInt8, from start: Int, stopAtBlankLine: Bool) -> Int? {
        var i = start
        while i < to {
            if bytes[i] == target { return i }
            if bytes[i] == 10 { return nil }
            i += 1
        }
        return nil
    }

    private func startsWithCI(_ s: StaticString, at i: Int) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= to else { return false }
        let p = s.utf8Start
        for k in 0..<n where asciiLowerByte(bytes[i + k]) != p[k] { return false }
        return true
    }

    private func asciiLowerByte(_ b: UInt8) -> UInt8 { (b >= 65 && b <= 90) ? b + 32 : b }

    /// `http://…`, `https://…`, `ftp://…`, `www.…`, `mailto:…` at a word start, up to white space
    /// or `<`, without trailing punctuation (GFM's extended autolink rule, roughly).
    private func bareURL(at i: Int) -> Int? {
        if i > range.lowerBound {
            let p = bytes[i - 1]
            if TextClass.isASCIIWordByte(p) || p >= 0x80 || p == 64 { return nil }
        }
        // Each prefix is tried only after its own first letter ("he", "was", "for", "me" start none).
        let isURL: Bool
        switch bytes[i] | 0x20 {
        case 104: isURL = startsWithCI("http://", at: i) || startsWithCI("https://", at: i)
        case 119: isURL = startsWithCI("www.", at: i)
        case 102: isURL = startsWithCI("ftp://", at: i)
        case 109: isURL = startsWithCI("mailto:", at: i)
        default: isURL = false
        }
        guard isURL else { return nil }
        var e = i
        var parens = 0
        while e < to {
            let b = bytes[e]
            if b == 32 || b == 9 || b == 10 || b == 13 || b == 60 { break }
            if b == 40 { parens += 1 }
            if b == 41 { if parens == 0 { break }; parens -= 1 }
            e += 1
        }
        while e > i {
            let b = bytes[e - 1]
            if b == 46 || b == 44 || b == 58 || b == 59 || b == 33 || b == 63 || b == 34 || b == 39 || b == 42 || b == 95 || b == 126 {
                e -= 1
            } else {
                break
            }
        }
        if startsWithCI("www.", at: i) && e - i <= 4 { return nil }
        return e > i + 4 ? e : nil
    }
}
