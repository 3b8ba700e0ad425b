import Foundation

/// Turns what a user typed into a safe FTS5 MATCH expression.
///
/// Every piece is quoted, so `C++`, `don't`, `AND`, `title: plan`, `"unbalanced` or `*` can never be
/// an FTS5 syntax error or a column filter. `"phrases"` stay phrases; a trailing `*` makes a prefix query.
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
        var chars = Array(input)
        var i = 0
        // Normalise curly quotes to straight ones so pasted phrases work.
        chars = chars.map { $0 == "\u{201C}" || $0 == "\u{201D}" ? "\"" : $0 }
        while i < chars.count {
            if chars[i].isWhitespace { i += 1; continue }
            if chars[i] == "\"" {
                var j = i + 1
                var text = ""
                while j < chars.count, chars[j] != "\"" { text.append(chars[j]); j += 1 }
                var prefix = false
                if j + 1 < chars.count, chars[j + 1] == "*" { prefix = true; j += 1 }
                i = j + 1
                let trimmed = text.trimmingCharacters(in: .whitespaces)
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

    static func hasWordCharacter(_ s: String) -> Bool {
        s.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// The MATCH expression: quoted pieces joined by spaces (implicit AND), prefix stars outside quotes.
    public var matchExpression: String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { t in
            let quoted = "\"" + t.text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return t.isPrefix ? quoted + "*" : quoted
        }.joined(separator: " ")
    }

    /// The lower-cased, diacritic-folded word stems used to find the best line for a snippet.
    public var highlightStems: [(stem: String, prefix: Bool)] {
        var out: [(String, Bool)] = []
        for t in terms {
            for w in Self.words(t.text) {
                out.append((Self.stem(w), t.isPrefix))
            }
        }
        return out
    }

    /// Splits text into folded words (letters and digits).
    static func words(_ s: String) -> [String] {
        fold(s).split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// Lower-cases and removes diacritics (café → cafe), as the index tokenizer does.
    static func fold(_ s: String) -> String {
        s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// A crude stem: enough of the word that its inflections (functions, running) still match.
    static func stem(_ w: String) -> String {
        let n = w.count
        if n <= 4 { return w }
        return String(w.prefix(max(4, n - 3)))
    }
}
