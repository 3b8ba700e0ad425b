import Foundation

/// Sentence splitting close to Vale's Punkt tokenizer for ordinary prose.
enum ValeSentences {
    static let abbreviations: Set<String> = ["e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "no", "fig", "cf", "al", "inc", "ltd", "co"]

    static let closers: Set<Unicode.Scalar> = [".", "!", "?", "\"", "'", ")", "”", "’", "]"]
    static let openers: Set<Unicode.Scalar> = ["\"", "“", "'", "(", "["]

    /// Unicode's White_Space, without the property look-up for ASCII.
    @inline(__always) static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x80 ? c.value == 32 || (c.value >= 9 && c.value <= 13) : c.properties.isWhitespace
    }

    static func split(_ text: String) -> [String] {
        let sc = Array(text.unicodeScalars)
        var out: [String] = []
        var start = 0
        var i = 0
        while i < sc.count {
            let c = sc[i]
            if c == "." || c == "!" || c == "?" {
                var j = i + 1
                while j < sc.count, closers.contains(sc[j]) { j += 1 }
                guard j < sc.count, isSpace(sc[j]) else { i = j; continue }
                var k = j
                while k < sc.count, isSpace(sc[k]) { k += 1 }
                if k >= sc.count { break }
                let next = sc[k]
                let startsNew = next.properties.isUppercase || next.properties.numericType != nil || openers.contains(next)
                // The word before the period.
                var w = i - 1
                while w >= start, !isSpace(sc[w]) { w -= 1 }
                var word = VB.string(sc[(w + 1)..<i]).lowercased()
                while word.hasPrefix("(") || word.hasPrefix("\"") { word.removeFirst() }
                let abbrev = c == "." && (abbreviations.contains(word) || (word.count == 1 && word.first!.isLetter))
                if startsNew && !abbrev {
                    out.append(VB.string(sc[start..<j]))
                    start = k
                    i = k
                    continue
                }
                i = j
                continue
            }
            i += 1
        }
        if start < sc.count { out.append(VB.string(sc[start...])) }
        return out
    }
}

/// What a capitalization rule compiles once, when it is loaded: its word pattern (the rule's
/// exceptions first, so that an exception is one word) and its `prefix`.
public struct ValeCasePatterns: Sendable {
    let words: ValeRegex?
    let prefix: ValeRegex?
    init(exceptRe: ValeRegex?, prefix: String) {
        words = exceptRe.flatMap { try? ValeRegex($0.pattern + "|" + ValeCase.wordPattern) } ?? ValeCase.tokenRe
        self.prefix = prefix.isEmpty ? nil : try? ValeRegex(prefix)
    }
}

/// Title and sentence case as Vale's `capitalization` checks them.
enum ValeCase {
    static let apSmall: Set<String> = ["a", "an", "and", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "so", "the", "to", "up", "yet",
                                       "as", "if", "off", "per", "via", "vs", "from", "into", "over", "with", "than", "out"]
    static let chicagoSmall: Set<String> = ["a", "an", "and", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "the", "to", "up", "as", "via", "vs", "from", "into", "with", "over", "per"]
    static let wordPattern = "[\\p{N}\\p{L}*]+[^\\s]*"
    static let tokenRe = try? ValeRegex(wordPattern)

    static func tokens(_ s: String, _ words: ValeRegex?) -> [String] {
        guard let re = words else { return [] }
        let t = ValeText(s)
        return re.matches(in: t).map { t.slice($0.range) }
    }

    static func vocabForm(_ w: String, _ exceptions: [String]) -> String? {
        exceptions.first { $0.lowercased() == w.lowercased() }
    }

    static func capFirst(_ s: String) -> String {
        guard let f = s.first else { return s }
        return f.uppercased() + s.dropFirst()
    }

    /// Splits off a leading `prefix` match (kept as it is in the expected form).
    static func splitPrefix(_ s: String, _ prefix: ValeRegex?) -> (String, String) {
        guard let re = prefix else { return ("", s) }
        let t = ValeText(s)
        guard let m = re.matches(in: t).first, m.range.lowerBound == 0, !m.range.isEmpty else { return ("", s) }
        return (t.slice(m.range), t.slice(m.range.upperBound..<t.scalars.count))
    }

    /// Indices of words covered by a multi-word exception, with the exception's own form.
    static func phraseWords(_ words: [String], _ exceptions: [String]) -> [Int: String] {
        var out: [Int: String] = [:]
        for e in exceptions where e.contains(" ") {
            let ew = e.split(separator: " ").map(String.init)
            guard ew.count <= words.count else { continue }
            for i in 0...(words.count - ew.count) where (0..<ew.count).allSatisfy({ words[i + $0].lowercased() == ew[$0].lowercased() }) {
                for k in 0..<ew.count { out[i + k] = ew[k] }
            }
        }
        return out
    }

    static func title(_ full: String, exceptRe: ValeRegex?, patterns: ValeCasePatterns, exceptions: [String], threshold: Double, chicago: Bool) -> (String, Bool) {
        let (pre, s) = splitPrefix(full, patterns.prefix)
        let words = s.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let phrases = phraseWords(words, exceptions)
        let small = chicago ? chicagoSmall : apSmall
        let nonEmpty = words.indices.filter { !words[$0].isEmpty }
        var conv: [String] = []
        for (i, w) in words.enumerated() {
            if w.isEmpty { conv.append(w); continue }
            if let v = phrases[i] ?? vocabForm(w, exceptions) { conv.append(v); continue }
            let bare = w.lowercased().trimmingCharacters(in: .punctuationCharacters)
            let edge = i == nonEmpty.first || i == nonEmpty.last || (i > 0 && words[i - 1].hasSuffix(":"))
            if !edge && small.contains(bare) { conv.append(w.lowercased()) }
            else if w.contains("-") { conv.append(w.split(separator: "-", omittingEmptySubsequences: false).map { capFirst(String($0)) }.joined(separator: "-")) }
            else { conv.append(capFirst(w)) }
        }
        let converted = conv.joined(separator: " ")
        let expected = pre + converted
        let exp = tokens(converted, patterns.words), got = tokens(s, patterns.words)
        var count = 0.0, n = 0.0
        for (i, w) in got.enumerated() {
            if i >= exp.count || w == exp[i] || (exceptRe?.isMatch(w) ?? false) || w == w.uppercased() { count += 1 }
            n += 1
        }
        return (expected, n == 0 || count / n >= threshold)
    }

    static func sentence(_ full: String, exceptRe: ValeRegex?, patterns: ValeCasePatterns, exceptions: [String], threshold: Double, indicators: [String]) -> (String, Bool) {
        let (pre, s) = splitPrefix(full, patterns.prefix)
        let words = s.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let phrases = phraseWords(words, exceptions)
        var conv: [String] = []
        var first = true
        var prev = ""
        for (i, w) in words.enumerated() {
            if w.isEmpty { conv.append(w); continue }
            if let v = phrases[i] ?? vocabForm(w, exceptions) { conv.append(v) }
            else if first || indicators.contains(where: { prev.hasSuffix($0) }) || (i == 1 && VB.startsWithNumberAndDot(prev)) {
                conv.append(capFirst(w.lowercased()))
            } else { conv.append(w.lowercased()) }
            first = false
            prev = w
        }
        let converted = conv.joined(separator: " ")
        let expected = pre + converted
        let exp = tokens(converted, patterns.words), got = tokens(s, patterns.words)
        var count = 0.0, n = 0.0
        for (i, w) in got.enumerated() {
            if i >= exp.count || w == exp[i] || (exceptRe?.isMatch(w) ?? false) { count += 1 }
            else if i == 0 && w != capFirst(w.lowercased()) { return (expected, false) }
            n += 1
        }
        return (expected, n == 0 || count / n >= threshold)
    }
}

/// Vale's `metric` rules: a formula over document counts.
enum ValeMetric {
    /// The document's counts a formula reads: words, sentences, syllables, … (nil for no words),
    /// counted as Vale's summary statistics count them: paragraphs split at blank lines, sentences
    /// within each, words as runs of letters, digits and apostrophes (or dotted acronyms), a long
    /// word over six bytes, a complex word over two syllables once an -es/-ed/-ing is set aside.
    static func counts(summary: String, metrics: [String: Int]) -> [String: Double]? {
        var vars: [String: Double] = [:]
        var words = 0, sentences = 0, characters = 0, syl = 0, poly = 0, complex = 0, long = 0
        for paragraph in summary.components(separatedBy: "\n\n") {
            for sentence in ValeSentences.split(paragraph) where !sentence.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                sentences += 1
                for w in Self.words(sentence) {
                    words += 1
                    characters += w.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }.count
                    if w.utf8.count > 6 { long += 1 }
                    let n = syllables(w)
                    syl += n
                    if n > 2 { poly += 1 }
                    let lw = w.lowercased()
                    if n - (lw.hasSuffix("es") || lw.hasSuffix("ed") || lw.hasSuffix("ing") ? 1 : 0) > 2 { complex += 1 }
                }
            }
        }
        if words == 0 { return nil }
        for (k, v) in metrics where !k.hasPrefix("table") { vars[k.replacingOccurrences(of: ".", with: "_")] = Double(v) }
        vars["words"] = Double(words)
        vars["sentences"] = Double(sentences)
        vars["paragraphs"] = Double(summary.components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }.count)
        vars["characters"] = Double(characters)
        vars["syllables"] = Double(syl); vars["polysyllabic_words"] = Double(poly)
        vars["complex_words"] = Double(complex); vars["long_words"] = Double(long)
        for name in ["heading_h1", "heading_h2", "heading_h3", "heading_h4", "heading_h5", "heading_h6", "list", "blockquote", "pre"] where vars[name] == nil { vars[name] = 0 }
        return vars
    }

    static let readabilityMetrics = ["Gunning Fog", "Coleman-Liau", "Flesch-Kincaid", "SMOG", "Automated Readability"]

    /// Vale's `readability`: the mean of the named grade-level formulas over the document.
    static func readability(_ names: [String], summary: String, metrics: [String: Int]) -> Double? {
        guard let v = counts(summary: summary, metrics: metrics), !names.isEmpty else { return nil }
        let words = v["words"] ?? 0, sentences = max(1, v["sentences"] ?? 1)
        guard words > 0 else { return nil }
        var grade = 0.0
        for name in names {
            switch name {
            case "SMOG": grade += 1.0430 * ((v["polysyllabic_words"] ?? 0) * 30 / sentences).squareRoot() + 3.1291
            case "Gunning Fog": grade += 0.4 * (words / sentences + 100 * (v["complex_words"] ?? 0) / words)
            case "Coleman-Liau":
                let l = (v["characters"] ?? 0) / words * 100, s = sentences / words * 100
                grade += 0.0588 * l - 0.296 * s - 15.8
            case "Flesch-Kincaid": grade += 0.39 * (words / sentences) + 11.8 * ((v["syllables"] ?? 0) / words) - 15.59
            case "Automated Readability": grade += 4.71 * ((v["characters"] ?? 0) / words) + 0.5 * (words / sentences) - 21.43
            default: break
            }
        }
        return grade / Double(names.count)
    }

    static func evaluate(formula: String, condition: String, summary: String, metrics: [String: Int]) -> (Double, Bool)? {
        guard let vars = counts(summary: summary, metrics: metrics) else { return nil }
        var p = ExprParser(Array(formula.unicodeScalars), vars)
        guard let res = p.parseExpr() else { return nil }
        let cond = condition.trimmingCharacters(in: .whitespaces)
        for op in [">=", "<=", "==", "!=", ">", "<"] where cond.hasPrefix(op) {
            var q = ExprParser(Array(cond.dropFirst(op.count).unicodeScalars), vars)
            guard let rhs = q.parseExpr() else { return nil }
            let fire: Bool
            switch op {
            case ">=": fire = res >= rhs
            case "<=": fire = res <= rhs
            case "==": fire = res == rhs
            case "!=": fire = res != rhs
            case ">": fire = res > rhs
            default: fire = res < rhs
            }
            return (res, fire)
        }
        return nil
    }

    /// A sentence's words: dotted acronyms ("U.S.") or runs of letters, digits and apostrophes.
    static func words(_ s: String) -> [String] {
        let sc = Array(s.unicodeScalars)
        var out: [String] = []
        var i = 0
        func isWordChar(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic || c.properties.numericType != nil || c == "'" }
        while i < sc.count {
            // (?:[A-Z]\.){2,}
            var j = i
            while j + 1 < sc.count, ("A"..."Z").contains(sc[j]), sc[j + 1] == "." { j += 2 }
            if j - i >= 4 {
                out.append(VB.string(sc[i..<j]))
                i = j
                continue
            }
            if isWordChar(sc[i]) {
                j = i
                while j < sc.count, isWordChar(sc[j]) { j += 1 }
                out.append(VB.string(sc[i..<j]))
                i = j
                continue
            }
            i += 1
        }
        return out
    }

    static func syllables(_ w: String) -> Int {
        let v = Set("aeiouy")
        var n = 0, prevV = false
        for c in w.lowercased() { let isV = v.contains(c); if isV && !prevV { n += 1 }; prevV = isV }
        if w.lowercased().hasSuffix("e") && n > 1 { n -= 1 }
        return max(1, n)
    }

    struct ExprParser {
        var s: [Unicode.Scalar]; var i = 0; let vars: [String: Double]
        init(_ s: [Unicode.Scalar], _ vars: [String: Double]) { self.s = s; self.vars = vars }
        mutating func skip() { while i < s.count, s[i] == " " || s[i] == "\t" || s[i] == "\n" { i += 1 } }
        mutating func parseExpr() -> Double? {
            guard var v = parseTerm() else { return nil }
            while true {
                skip(); guard i < s.count, s[i] == "+" || s[i] == "-" else { return v }
                let op = s[i]; i += 1
                guard let r = parseTerm() else { return nil }
                v = op == "+" ? v + r : v - r
            }
        }
        mutating func parseTerm() -> Double? {
            guard var v = parseFactor() else { return nil }
            while true {
                skip(); guard i < s.count, s[i] == "*" || s[i] == "/" else { return v }
                let op = s[i]; i += 1
                guard let r = parseFactor() else { return nil }
                v = op == "*" ? v * r : v / r
            }
        }
        mutating func parseFactor() -> Double? {
            skip(); guard i < s.count else { return nil }
            if s[i] == "(" { i += 1; let v = parseExpr(); skip(); if i < s.count, s[i] == ")" { i += 1 }; return v }
            if s[i] == "-" { i += 1; return parseFactor().map { -$0 } }
            var tok = ""
            while i < s.count, s[i].properties.isAlphabetic || s[i].properties.numericType != nil || s[i] == "_" || s[i] == "." { tok.unicodeScalars.append(s[i]); i += 1 }
            if let d = Double(tok) { return d }
            return vars[tok.replacingOccurrences(of: ".", with: "_")] ?? 0
        }
    }
}
