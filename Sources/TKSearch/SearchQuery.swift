/// Turns what a user typed into a safe FTS5 MATCH expression.
///
/// Every piece is quoted, so `C++`, `don't`, `AND`, `title: plan`, `"unbalanced` or `*` can never be
/// an FTS5 syntax error or a column filter. `"phrases"` stay phrases; a trailing `*` makes a prefix query.
///
/// TKSearch uses the standard library only (no Foundation): `tk-agent search` starts in about two
/// milliseconds because of it.
public struct SearchQuery: Sendable, Equatable {
    public struct Term: Sendable, Equatable {
        public var text: String
        public var isPhrase: Bool
        public var isPrefix: Bool
    }

    public var terms: [Term]

    public init(_ input: [String]) {
        self.init(input.joined(separator: " "))
    }

    public init(_ input: String) {
        var terms: [Term] = []
        // Curly quotes become straight ones so pasted phrases work; a NUL would end SQLite's string early.
        let chars = input.map { $0 == "\u{201C}" || $0 == "\u{201D}" ? "\"" : $0 == "\u{0}" ? " " : $0 }
        var i = 0
        while i < chars.count {
            if chars[i].isWhitespace { i += 1; continue }
            if chars[i] == "\"" {
                var j = i + 1
                var text = ""
                while j < chars.count, chars[j] != "\"" { text.append(chars[j]); j += 1 }
                var prefix = false
                if j + 1 < chars.count, chars[j + 1] == "*" { prefix = true; j += 1 }
                i = j + 1
                let trimmed = Self.trimmed(text)
                if Self.hasWordCharacter(trimmed) {
                    terms.append(Term(text: trimmed, isPhrase: trimmed.contains(" "), isPrefix: prefix))
                }
                continue
            }
            var text = ""
            while i < chars.count, !chars[i].isWhitespace, chars[i] != "\"" { text.append(chars[i]); i += 1 }
            var prefix = false
            while text.hasSuffix("*") { text.removeLast(); prefix = true }
            if Self.hasWordCharacter(text) { terms.append(Term(text: text, isPhrase: false, isPrefix: prefix)) }
        }
        self.terms = terms
    }

    /// Whether a scalar is part of a word: a letter, a mark or a number (what FTS5's unicode61
    /// tokenizer keeps, and what Foundation calls alphanumerics).
    static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    static func hasWordCharacter(_ s: String) -> Bool {
        s.unicodeScalars.contains(where: isWordScalar)
    }

    static func trimmed(_ s: String) -> String {
        let isBlank = { (c: Character) in c == " " || c == "\t" || (c.isWhitespace && !c.isNewline) }
        guard let first = s.firstIndex(where: { !isBlank($0) }), let last = s.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(s[first...last])
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// The MATCH expression: quoted pieces joined by spaces (implicit AND), prefix stars outside quotes.
    public var matchExpression: String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { t in
            var quoted = "\""
            for c in t.text { quoted += c == "\"" ? "\"\"" : String(c) }
            quoted += "\""
            return t.isPrefix ? quoted + "*" : quoted
        }.joined(separator: " ")
    }
}
