import Foundation

/// A Vale `sequence` rule: a run of tokens, each a word pattern and/or a part-of-speech tag,
/// looked for in every sentence (Vale's `check/sequence.go`, with its semantics kept: a token's
/// `pattern` and `tag` are unanchored regular expressions — "be" matches "been", "NN" matches
/// "NNS" —, `skip: N` lets up to N words come before the token, the first token with a pattern is
/// the anchor the rest is matched around, and the place is where the words, joined with spaces,
/// occur in the sentence).
public struct ValeSequence: Sendable {
    struct Token: Sendable {
        var pattern: String
        var tag: String
        var skip: Int
        var negate: Bool
        var re: ValeRegex?
        var tagRe: ValeRegex?
        var optional = false
        var start = false
        var end = false
    }

    var tokens: [Token]

    /// The rule's `tokens`, expanded as Vale's `makeTokens` does: `skip: N` becomes N optional
    /// copies before the token itself.
    init(_ raw: Any?, ignorecase: Bool, name: String) throws {
        guard let list = raw as? [Any], !list.isEmpty else { throw ValeRuleError.needs(what: "a sequence", key: "a list of 'tokens'") }
        var out: [Token] = []
        for item in list {
            var lowered: [String: Any] = [:]
            if let m = item as? [String: Any] {
                for (k, v) in m { lowered[k.lowercased()] = v }
            } else if let m = item as? [AnyHashable: Any] {
                for (k, v) in m { lowered[(ValeStyles.str(k.base) ?? "\(k)").lowercased()] = v }
            } else {
                throw ValeRuleError.badToken
            }
            let pattern = ValeStyles.str(lowered["pattern"]) ?? ""
            let tag = ValeStyles.str(lowered["tag"]) ?? ""
            // A sentence never has more words than this: a larger `skip` means the same, without a
            // token list the size of the number.
            let skip = min(max(0, ValeStyles.int(lowered["skip"])), 1000)
            var tok = Token(pattern: pattern, tag: tag, skip: skip, negate: ValeStyles.bool(lowered["negate"]))
            if !pattern.isEmpty {
                tok.re = try ValeStyles.regex((ignorecase ? "(?i)" : "") + "(?m)(?:" + pattern + ")", name)
            }
            if !tag.isEmpty { tok.tagRe = try ValeStyles.regex(tag, name) }
            tok.optional = true
            var i = tok.skip
            while i > 0 {
                tok.start = i == tok.skip
                out.append(tok)
                i -= 1
            }
            if !pattern.isEmpty || !tag.isEmpty {
                tok.optional = false
                tok.end = true
                out.append(tok)
            }
        }
        tokens = out
    }

    /// Vale's `tokensMatch`.
    static func matches(_ token: Token, _ word: ValeNLP.Token) -> Bool {
        let tagHit = token.tagRe?.isMatch(word.tag) ?? true
        let failedTag = tagHit == token.negate
        let failedTok = token.re != nil && (token.re?.isMatch(word.text) ?? false) == token.negate
        if (token.pattern.isEmpty && failedTag) || (token.tag.isEmpty && failedTok)
            || (!token.tag.isEmpty && !token.pattern.isEmpty && (failedTag || failedTok)) { return false }
        return true
    }

    /// Vale's `sequenceMatches`: around the first word that matches the anchor `target` (and is not
    /// in `history`), the words the sequence spans, or none; and that word's index.
    func sequenceMatches(_ idx: Int, _ target: Token, _ words: [ValeNLP.Token], history: [Int]) -> ([String], Int) {
        var text: [String] = []
        let sizeT = tokens.count, sizeW = words.count
        var index = 0
        for (jdx, tok) in words.enumerated() where Self.matches(target, tok) && !history.contains(jdx) {
            index = jdx
            if idx > 0 {
                var i = 1
                while idx - i >= 0 {
                    if jdx - i < 0 { return ([], index) }
                    var t = tokens[idx - i]
                    let word = words[jdx - i]
                    text.insert(word.text, at: 0)
                    // Read from right to left, a skipped run's required end becomes optional and its start required.
                    if t.skip > 0 { t.optional = (t.optional || t.end) && !t.start }
                    let mat = Self.matches(t, word)
                    if !mat && !t.optional { return ([], index) } else if mat && t.optional { break }
                    i += 1
                }
            }
            if idx < sizeT {
                var i = 0
                while idx + i < sizeT {
                    if jdx + i >= sizeW { return ([], index) }
                    let t = tokens[idx + i]
                    let word = words[jdx + i]
                    text.append(word.text)
                    let mat = Self.matches(t, word)
                    if !mat && !t.optional { return ([], index) } else if mat && t.optional { break }
                    i += 1
                }
            }
            break
        }
        return (text, index)
    }

    /// Vale's `stepsToString`: the words joined by spaces, a clitic ("'s") joined to the word before.
    static func stepsToString(_ steps: [String]) -> String {
        var s = ""
        for step in steps { s += step.hasPrefix("'") ? step : " " + step }
        return s.trimmingCharacters(in: CharacterSet(charactersIn: " "))
    }

    /// One finding in a sentence: the words matched, their byte offset in the sentence (-1 when
    /// they do not occur there as joined), and the anchors' texts skipped before it.
    struct Hit {
        var steps: [String]
        var match: String
        var byteOffset: Int
        var skippedAnchors: [[UInt8]]
    }

    /// Vale's `Sequence.Run` on one sentence.
    func run(_ sentence: String, words: [ValeNLP.Token]) -> [Hit] {
        var hits: [Hit] = []
        var offset: [[UInt8]] = []
        var history: [Int] = []
        let bytes = Array(sentence.utf8)
        let text = ValeText(sentence)
        for (idx, tok) in tokens.enumerated() where !tok.negate && !tok.pattern.isEmpty {
            guard let re = tok.re else { break }
            for m in re.matches(in: text) {
                let (steps, index) = sequenceMatches(idx, tok, words, history: history)
                history.append(index)
                if !steps.isEmpty {
                    let seq = Self.stepsToString(steps)
                    let sb = Array(seq.utf8)
                    hits.append(Hit(steps: steps, match: seq, byteOffset: VB.index(bytes, sb) ?? -1, skippedAnchors: offset))
                    offset = []
                } else {
                    offset.append(Array(text.slice(m.range).utf8))
                }
            }
            break
        }
        return hits
    }
}
