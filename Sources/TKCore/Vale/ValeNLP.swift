import Foundation

/// The words of a sentence as Vale's `sequence` rules see them: the Penn Treebank word split
/// (contractions and the possessive `'s` apart, punctuation as its own token, `"` as `` and '')
/// and a Penn Treebank part-of-speech tag for each.
///
/// Vale tags with an averaged perceptron trained on the Wall Street Journal; its weights are not
/// ours to ship, so the tags here come from tk-agent's own lexicon (WordNet's parts of speech
/// and most frequent readings, the hand-kept closed classes) and a left-to-right reading of the
/// context: after a determiner a noun, after a modal or `to` a base verb, after a form of `be`
/// a participle. Tags agree with the perceptron's on the distinctions sequence rules ask about
/// (noun or verb, which verb form, adjective and superlative, modal, pronoun), not on every word.
enum ValeNLP {
    struct Token: Equatable {
        var text: String
        var tag: String
    }

    /// `text` (one sentence or a few) as tagged words.
    static func tokens(_ text: String) -> [Token] {
        var words: [String] = []
        for s in ValeSentences.split(text) { words += treebankWords(s) }
        let tags = tag(words)
        return zip(words, tags).map { Token(text: $0, tag: $1) }
    }

    // MARK: - Treebank words

    /// One rewrite of the Treebank word split: a pattern and its template (`$1`…).
    private struct Rewrite: @unchecked Sendable {
        // NSRegularExpression is immutable and thread-safe; Foundation on Linux does not mark it Sendable.
        let re: NSRegularExpression?
        let template: String
        init(_ p: String, _ t: String) {
            // The patterns are constants of this file: a failure to compile is a programming error
            // caught by the unit tests (`ValeSequenceTests`); such a rewrite would change nothing.
            re = try? NSRegularExpression(pattern: p)
            template = t
        }
        func apply(_ s: String) -> String {
            guard let re else { return s }
            return re.stringByReplacingMatches(in: s, range: NSRange(location: 0, length: (s as NSString).length), withTemplate: template)
        }
    }

    /// The Treebank rules in their order: opening quotes, punctuation, brackets, then (on the text
    /// padded with spaces) closing quotes, clitics and the split contractions.
    private static let opening: [Rewrite] = [
        Rewrite("^\"", "``"),
        Rewrite("( \")", " ``"),
        Rewrite("([(\\[{<])\"", "$1 `` "),
        Rewrite("(``)", " $1 "),
        Rewrite("([:,])([^\\d])", " $1 $2"),
        Rewrite("\\.\\.\\.", " ... "),
        Rewrite("([^\\.])(\\.)([\\]\\)}>\"']*)\\s*$", "$1 $2$3 "),
        Rewrite("([^'])' ", "$1 ' "),
        Rewrite("([:,])$", " $1 "),
        Rewrite("([;@#$%&?!])", " $1 "),
        Rewrite("([\\]\\[\\(\\)\\{\\}<>])", " $1 "),
        Rewrite("--", " -- "),
    ]
    private static let closing: [Rewrite] = [
        Rewrite("\"", " '' "),
        Rewrite("([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
        Rewrite("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
        Rewrite("(?i)\\b(can)(not)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(d)('ye)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(gim)(me)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(gon)(na)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(got)(ta)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(lem)(me)\\b", " $1 $2 "),
        Rewrite("(?i)\\b(wan)(na) ", " $1 $2 "),
        Rewrite("(?i) ('t)(is)\\b", " $1 $2 "),
        Rewrite("(?i) ('t)(was)\\b", " $1 $2 "),
    ]

    /// A sentence split into Treebank words.
    static func treebankWords(_ sentence: String) -> [String] {
        var t = sentence
        for r in opening { t = r.apply(t) }
        t = " " + t + " "
        for r in closing { t = r.apply(t) }
        return t.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).map(String.init)
    }

    // MARK: - Tags

    private static let fixed: [String: String] = {
        var m: [String: String] = [:]
        func put(_ words: String, _ tag: String) { for w in words.split(separator: " ") { m[String(w)] = tag } }
        put("the a an this that these those every each another either neither all both no some any", "DT")
        put("i you he she it we they me him us them one's myself yourself himself herself itself ourselves themselves", "PRP")
        put("my your his our their its", "PRP$")
        put("which whatever whichever", "WDT")
        put("who whom what whoever", "WP")
        put("whose", "WP$")
        put("when where why how whenever wherever", "WRB")
        put("can could may might must shall should will would ought 'll 'd", "MD")
        put("to", "TO")
        put("and or but nor plus", "CC")
        put("""
        about above across after against along among around as at before behind below beneath beside besides between \
        beyond by despite down during except for from in inside into like near of off on onto out outside over past \
        since through throughout till toward towards under underneath until unto upon via with within without \
        because although though if unless while whereas whether than
        """, "IN")
        put("not n't never also very too quite rather really just only even still already always often sometimes here now then again ever soon almost perhaps maybe", "RB")
        put("be", "VB"); put("am are 're 'm", "VBP"); put("is", "VBZ"); put("was were", "VBD"); put("been", "VBN"); put("being", "VBG")
        put("have 've", "VBP"); put("has", "VBZ"); put("had", "VBD"); put("do", "VBP"); put("does", "VBZ"); put("did", "VBD"); put("done", "VBN")
        put("yes oh hello thanks please", "UH")
        put("zero one two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand million billion", "CD")
        put("best worst most least", "JJS")
        put("better worse more less", "JJR")
        return m
    }()

    private static let punctuation: [String: String] = [
        ",": ",", ".": ".", "?": ".", "!": ".", ":": ":", ";": ":", "--": ":", "...": ":", "``": "``", "''": "''",
        "(": "(", ")": ")", "[": "(", "]": ")", "{": "(", "}": ")", "$": "$", "#": "#", "'": "''",
    ]

    /// Penn Treebank tags for `words`, one each.
    static func tag(_ words: [String]) -> [String] {
        var tags: [String] = []
        tags.reserveCapacity(words.count)
        for (i, w) in words.enumerated() {
            let prev = tags.last ?? ""
            let next = i + 1 < words.count ? words[i + 1] : ""
            tags.append(tagOne(w, at: i, prev: prev, before: tags, next: next, first: i == 0 || ["``", ":", "("].contains(prev)))
        }
        return tags
    }

    private static func isNounTag(_ t: String) -> Bool { t.hasPrefix("NN") }
    private static func isAdjTag(_ t: String) -> Bool { t.hasPrefix("JJ") }

    private static func tagOne(_ w: String, at i: Int, prev: String, before: [String], next: String, first: Bool) -> String {
        if let p = punctuation[w] { return p }
        let lower = w.lowercased()
        if lower == "'s" { return isNounTag(prev) ? "POS" : "VBZ" }
        if w.unicodeScalars.allSatisfy({ CharacterSet.decimalDigits.contains($0) || $0 == "." || $0 == "," }),
           w.unicodeScalars.contains(where: { CharacterSet.decimalDigits.contains($0) }) { return "CD" }
        let capitalised = w.unicodeScalars.first.map { CharacterSet.uppercaseLetters.contains($0) } ?? false
        if lower == "her" {
            // "her" before a noun phrase is possessive, else the object.
            let n = next.lowercased()
            return !n.isEmpty && punctuation[n] == nil && fixed[n] == nil ? "PRP$" : "PRP"
        }
        if lower == "that" { return isNounTag(prev) || prev.hasPrefix("VB") ? "IN" : "DT" }
        if lower == "there" { return ["is", "are", "was", "were", "'s"].contains(next.lowercased()) ? "EX" : "RB" }
        if lower == "so" || lower == "yet" { return "RB" }
        if var t = fixed[lower] {
            if capitalised && !first && lower != "i" { return "NNP" }
            if t == "VBP" && (prev == "MD" || prev == "TO") { t = "VB" }
            if lower == "have" || lower == "do" {
                if first || prev == "MD" || prev == "TO" { t = first ? "VBP" : "VB" }
            }
            if lower == "had" && before.suffix(3).contains(where: { ["VBP", "VBZ", "VBD", "MD"].contains($0) }) && before.last != "PRP" { t = "VBN" }
            return t
        }
        if capitalised && !first { return w.hasSuffix("s") && w.count > 3 && w.dropLast().allSatisfy({ $0.isLetter }) && w.uppercased() != w ? "NNPS" : "NNP" }
        if superlative(lower) { return "JJS" }
        let bytes = Array(lower.utf8)
        let lex = POSLexicon.shared.tags(bytes)
        if lex.isEmpty || lex.isSubset(of: [.mainNoun, .mainVerb, .mainAdjective, .mainAdverb]) {
            if capitalised { return "NNP" }
            return unknown(lower)
        }
        return choose(lower, lex, prev: prev, before: before, first: first)
    }

    /// The tag of a word the lexicon does not know, from its ending.
    private static func unknown(_ w: String) -> String {
        if w.contains(where: { $0.isNumber }) { return "CD" }
        if w.hasSuffix("ing") && w.count > 4 { return "VBG" }
        if w.hasSuffix("ed") && w.count > 3 { return "VBN" }
        if w.hasSuffix("ly") && w.count > 3 { return "RB" }
        for s in ["able", "ible", "ous", "ive", "ful", "less", "ical", "ic", "al"] where w.hasSuffix(s) && w.count > s.count + 2 { return "JJ" }
        if w.hasSuffix("s") && !w.hasSuffix("ss") && !w.hasSuffix("us") && w.count > 3 { return "NNS" }
        return "NN"
    }

    /// A superlative: "-est" on an adjective the lexicon knows ("greatest", "nicest", "biggest", "happiest").
    private static func superlative(_ w: String) -> Bool {
        guard w.hasSuffix("est"), w.count > 5 else { return false }
        let b = Array(w.utf8.dropLast(3))
        var stems: [[UInt8]] = [b, b + [101]]
        if b.count >= 3, b[b.count - 1] == b[b.count - 2] { stems.append(Array(b.dropLast())) }
        if b.last == 105 { stems.append(Array(b.dropLast()) + [121]) }
        return stems.contains { POSLexicon.shared.tags($0).contains(.adjective) }
    }

    private static func choose(_ w: String, _ lex: POSTags, prev: String, before: [String], first: Bool) -> String {
        let noun = lex.contains(.noun), verb = lex.contains(.verb), adj = lex.contains(.adjective), adv = lex.contains(.adverb)
        let past = lex.contains(.past), gerund = lex.contains(.gerund), third = lex.contains(.thirdPerson)
        let plural = lex.contains(.plural)
        func nounTag() -> String { plural ? "NNS" : "NN" }
        func verbTag() -> String {
            if gerund { return "VBG" }
            if past {
                let aux = before.suffix(3).contains { ["VB", "VBZ", "VBP", "VBD", "VBN", "VBG"].contains($0) }
                return aux || prev == "DT" ? "VBN" : (prev.hasPrefix("NN") || prev.hasPrefix("PRP") ? "VBD" : "VBN")
            }
            if third { return "VBZ" }
            if prev == "MD" || prev == "TO" || first { return "VB" }
            if prev.hasPrefix("NN") || prev == "PRP" || prev == "WDT" || prev == "WP" { return "VBP" }
            return "VB"
        }
        if lex.contains(.comparative) && adj == false { return "JJR" }
        // Contexts that decide.
        if (prev == "MD" || prev == "TO") && verb { return gerund || past ? verbTag() : "VB" }
        if ["VB", "VBZ", "VBP", "VBD", "VBN", "VBG"].contains(prev) && before.count >= 1 {
            // After a verb: a participle goes with it ("is written", "was running"), an adjective is predicative.
            if past && verb { return "VBN" }
            if gerund && verb { return "VBG" }
        }
        // After a predicative adjective ("would be available come") no noun phrase is under way.
        let predicative = isAdjTag(prev) && (before.dropLast().last.map { $0.hasPrefix("VB") } ?? false)
        if ["DT", "PRP$", "POS", "CD", "WP$"].contains(prev) || (isAdjTag(prev) && !predicative) {
            if adj && (lex.contains(.mainAdjective) || !noun) { return "JJ" }
            if noun { return nounTag() }
            if gerund { return "VBG" }
            if adj { return "JJ" }
        }
        if isNounTag(prev) || prev == "PRP" || prev == "WDT" || prev == "WP" {
            // After a subject: a verb form.
            if verb && (past || third || gerund) { return verbTag() }
            if verb && !lex.contains(.mainNoun) && prev != "PRP$" { return verbTag() }
            if prev == "PRP" && verb { return verbTag() }
        }
        if first && verb && lex.contains(.mainVerb) && !plural { return "VB" }
        // The reading the word has most often.
        if lex.contains(.mainNoun) && noun { return nounTag() }
        if lex.contains(.mainVerb) && verb { return verbTag() }
        if lex.contains(.mainAdjective) && adj { return "JJ" }
        if lex.contains(.mainAdverb) && adv { return "RB" }
        if noun { return nounTag() }
        if verb { return verbTag() }
        if adj { return "JJ" }
        if adv { return "RB" }
        return unknown(w)
    }
}
