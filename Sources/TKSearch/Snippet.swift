/// Picks the line of a hit to show, from the body as FTS5's `highlight()` marked it.
///
/// FTS5 itself decides what matched (porter stems, folded diacritics, prefixes, phrases), so the
/// snippet highlights exactly what the index found. The body arrives with `open`/`close` marker
/// bytes around each match; this finds the line with the most distinct matched words, clips it to
/// about 160 characters around the first match and returns the matches as scalar ranges.
public enum Snippet {
    /// The marker bytes passed to `highlight()`: control characters that prose does not contain.
    public static let open: UInt8 = 0x01
    public static let close: UInt8 = 0x02

    /// About this many Unicode scalars of a long line are shown.
    static let width = 160

    /// The best line (1-based), its clipped text and the `[start, end)` scalar ranges of the matches in it.
    public static func best(inHighlighted body: [UInt8]) -> (line: Int, text: String, highlights: [[Int]]) {
        var bestLine = 0
        var bestScore = 0
        var bestRange = 0..<0
        var bestStartsInMatch = false
        var firstText: (line: Int, range: Range<Int>)?
        var lineNo = 0
        var start = 0
        var inMatch = false
        let n = body.count
        while start <= n {
            var end = start
            while end < n, body[end] != UInt8(ascii: "\n") { end += 1 }
            lineNo += 1
            let lineStartsInMatch = inMatch
            var hasMarker = false
            for i in start..<end where body[i] == open || body[i] == close {
                hasMarker = true
                inMatch = body[i] == open
            }
            if hasMarker || lineStartsInMatch {
                let score = distinctMatches(body[start..<end], startsInMatch: lineStartsInMatch)
                if score > bestScore {
                    (bestScore, bestLine, bestRange, bestStartsInMatch) = (score, lineNo, start..<end, lineStartsInMatch)
                }
            }
            if firstText == nil, !isBlank(body[start..<end]), !body[start..<end].starts(with: Array("---".utf8)) {
                firstText = (lineNo, start..<end)
            }
            start = end + 1
        }
        if bestScore == 0 {
            guard let firstText else { return (1, "", []) }
            let (plain, _) = strip(body[firstText.range], startsInMatch: false)
            return (firstText.line, clip(plain, around: nil).text, [])
        }
        let (plain, ranges) = strip(body[bestRange], startsInMatch: bestStartsInMatch)
        let clipped = clip(plain, around: ranges.first?[0])
        let shifted = ranges.compactMap { r -> [Int]? in
            let s = r[0] - clipped.offset, e = min(r[1], clipped.offset + clipped.length) - clipped.offset
            return s >= 0 && s < e ? [s + clipped.lead, e + clipped.lead] : nil
        }
        return (bestLine, clipped.text, shifted)
    }

    /// How many different words (case-insensitively) are marked in a line.
    static func distinctMatches(_ line: ArraySlice<UInt8>, startsInMatch: Bool) -> Int {
        var seen = Set<String>()
        var current: [UInt8] = []
        var inMatch = startsInMatch
        for b in line {
            if b == open { inMatch = true; current = []; continue }
            if b == close {
                if inMatch, !current.isEmpty { seen.insert(String(decoding: current, as: UTF8.self).lowercased()) }
                inMatch = false
                current = []
                continue
            }
            if inMatch { current.append(b) }
        }
        if inMatch, !current.isEmpty { seen.insert(String(decoding: current, as: UTF8.self).lowercased()) }
        return seen.count
    }

    /// The line's scalars without markers, and the marked ranges in scalar offsets.
    ///
    /// Marker bytes are ASCII control characters, so they never split a UTF-8 sequence: the text
    /// between two markers decodes on its own.
    static func strip(_ line: ArraySlice<UInt8>, startsInMatch: Bool) -> ([Unicode.Scalar], [[Int]]) {
        var scalars: [Unicode.Scalar] = []
        var ranges: [[Int]] = []
        var openAt: Int? = startsInMatch ? 0 : nil
        var segmentStart = line.startIndex
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: line[segmentStart..<end], as: UTF8.self).unicodeScalars)
        }
        for i in line.indices where line[i] == open || line[i] == close {
            flush(i)
            segmentStart = i + 1
            if line[i] == open {
                openAt = scalars.count
            } else if let o = openAt {
                if scalars.count > o { ranges.append([o, scalars.count]) }
                openAt = nil
            }
        }
        flush(line.endIndex)
        if let o = openAt, scalars.count > o { ranges.append([o, scalars.count]) }
        return (scalars, ranges)
    }

    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") || $0 == open || $0 == close }
    }

    /// Trims a line to about `width` scalars around `around`, with an ellipsis where cut.
    /// Returns the text, the first kept scalar's offset, how many were kept and 1 when an ellipsis leads.
    static func clip(_ scalars: [Unicode.Scalar], around: Int?) -> (text: String, offset: Int, length: Int, lead: Int) {
        var start = 0
        var end = scalars.count
        // Leading indentation is noise in a snippet.
        while start < end, scalars[start] == " " || scalars[start] == "\t" { start += 1 }
        while end > start, scalars[end - 1] == "\r" { end -= 1 }
        let fullEnd = end
        if end - start > width {
            let center = around ?? start
            start = max(start, center - 50)
            end = min(fullEnd, start + width)
        }
        var out = String.UnicodeScalarView()
        var lead = 0
        if start > 0, scalars[0..<start].contains(where: { $0 != " " && $0 != "\t" }) { out.append("…"); lead = 1 }
        out.append(contentsOf: scalars[start..<end])
        if end < fullEnd { out.append("…") }
        return (String(out), start, end - start, lead)
    }
}
