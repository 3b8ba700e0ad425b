/// Long lists of plain words in a pattern (a pack's `tokens`, Vale's `\b(?:a|b|…)\b`) rewritten as a
/// tree of shared beginnings: `(?:be|been|being)` becomes `(?:b(?:e(?:|en|ing)))`.
///
/// ICU tries an alternation's branches one after another, each through its case-folding iterator:
/// at every place a rule is tried, a list of 190 participles (Microsoft.Passive) cost 40,000
/// instructions. The tree holds the same words in the same order of preference: at a given place
/// only words that begin with the same character (the same letter in either case under `(?i)`)
/// can match both, and the tree keeps those in their order; a word that ends where longer ones go
/// on matches wherever they do, so none of them is moved across it. So every match, and which branch wins it, is
/// what the list gives, on text in which no character's case mapping reaches ASCII (`ß` matches
/// `ss` as a string under ICU's `(?i)`, not letter by letter): the rewritten pattern is only used
/// where the prefilter has seen such a text (`ValePrefilter.hits` is nil for any other).
enum ValeAlternation {
    /// How many plain words in a row make a list worth the rewrite (and a second compiled pattern).
    static let minimumRun = 12

    /// The pattern with each run of at least `minimumRun` plain-word branches made a tree; nil when
    /// there is none, or the pattern uses what this reader leaves alone (case or spacing flags other
    /// than leading ones, `\Q…\E`, comments).
    static func factored(_ pattern: String) -> String? {
        let c = Array(pattern.unicodeScalars)
        // Leading flags: `(?i)`, `(?m)`, `(?s)`, `(?im)`…
        var i = 0
        var caseless = false
        while i + 2 < c.count, c[i] == "(", c[i + 1] == "?" {
            var j = i + 2
            var flags: [Unicode.Scalar] = []
            while j < c.count, "imsw".unicodeScalars.contains(c[j]) { flags.append(c[j]); j += 1 }
            guard !flags.isEmpty, j < c.count, c[j] == ")" else { break }
            if flags.contains("i") { caseless = true }
            i = j + 1
        }
        let body = Array(c[i...])
        guard let groups = Self.groups(body) else { return nil }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: c[..<i])
        // Each group's branches (and the pattern's own top level), innermost first does not matter:
        // only branches that are plain words are rewritten, and those hold no group.
        var replacements: [(range: Range<Int>, text: [Unicode.Scalar])] = []
        for g in groups {
            var run: [(start: Int, end: Int)] = []
            func flush() {
                defer { run = [] }
                guard run.count >= minimumRun else { return }
                // Plain words are ASCII: one byte a scalar.
                let words = run.map { body[$0.start..<$0.end].map { UInt8(truncatingIfNeeded: $0.value) }[...] }
                var text: [UInt8] = []
                tree(words, caseless: caseless, into: &text)
                replacements.append((run[0].start..<run[run.count - 1].end, text.map { Unicode.Scalar($0) }))
            }
            for b in g {
                if b.end > b.start, body[b.start..<b.end].allSatisfy(isPlain) { run.append(b) } else { flush() }
            }
            flush()
        }
        guard !replacements.isEmpty else { return nil }
        var at = 0
        for r in replacements.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            guard r.range.lowerBound >= at else { return nil }   // overlapping: not expected, left alone
            out.append(contentsOf: body[at..<r.range.lowerBound])
            out.append(contentsOf: r.text)
            at = r.range.upperBound
        }
        out.append(contentsOf: body[at...])
        return String(out)
    }

    /// A character a plain word may hold: ICU reads each of these as itself outside a class.
    static func isPlain(_ s: Unicode.Scalar) -> Bool {
        (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == " " || s == "'" || s == "-"
    }

    /// The branches of every group and of the top level, as ranges of `p`; nil for syntax this
    /// reader does not follow.
    static func groups(_ p: [Unicode.Scalar]) -> [[(start: Int, end: Int)]]? {
        var done: [[(start: Int, end: Int)]] = []
        // Open groups: where the current branch starts, and the branches so far.
        var stack: [(branchStart: Int, branches: [(start: Int, end: Int)])] = [(0, [])]
        var i = 0
        while i < p.count {
            let ch = p[i]
            switch ch {
            case "\\":
                guard i + 1 < p.count else { return nil }
                if p[i + 1] == "Q" { return nil }
                // `\p{…}`, `\x{…}`, `\N{…}`: the braces belong to the escape.
                if "pPxN".unicodeScalars.contains(p[i + 1]), i + 2 < p.count, p[i + 2] == "{" {
                    var j = i + 3
                    while j < p.count, p[j] != "}" { j += 1 }
                    i = j + 1
                } else {
                    i += 2
                }
            case "[":
                // A class, with ICU's nested sets: up to its matching `]`.
                var depth = 0
                var j = i
                while j < p.count {
                    if p[j] == "\\" { j += 2; continue }
                    if p[j] == "[" { depth += 1 } else if p[j] == "]" { depth -= 1; if depth == 0 { break } }
                    j += 1
                }
                guard j < p.count else { return nil }
                i = j + 1
            case "(":
                var start = i + 1
                if i + 1 < p.count, p[i + 1] == "?" {
                    // `(?:`, `(?=`, `(?!`, `(?>`, `(?<=`, `(?<!`, `(?<name>`; any other (flags, comments) is left alone.
                    guard i + 2 < p.count else { return nil }
                    let k = p[i + 2]
                    // `(?m)`, `(?s)`, `(?w)` inside (Vale puts `(?m)` after a rule's `raw`): they
                    // change nothing a plain word matches. `(?i)`, `(?x)` and the rest are left alone.
                    var j = i + 2
                    while j < p.count, "msw".unicodeScalars.contains(p[j]) { j += 1 }
                    if j > i + 2, j < p.count, p[j] == ")" {
                        i = j + 1
                        continue
                    }
                    if k == ":" || k == "=" || k == "!" || k == ">" {
                        start = i + 3
                    } else if k == "<" {
                        guard i + 3 < p.count else { return nil }
                        if p[i + 3] == "=" || p[i + 3] == "!" { start = i + 4 } else {
                            var j = i + 3
                            while j < p.count, p[j] != ">" { j += 1 }
                            guard j < p.count else { return nil }
                            start = j + 1
                        }
                    } else {
                        return nil
                    }
                }
                stack.append((start, []))
                i = start
            case "|":
                stack[stack.count - 1].branches.append((stack[stack.count - 1].branchStart, i))
                stack[stack.count - 1].branchStart = i + 1
                i += 1
            case ")":
                guard stack.count > 1, let top = stack.popLast() else { return nil }
                done.append(top.branches + [(top.branchStart, i)])
                i += 1
            default:
                i += 1
            }
        }
        guard stack.count == 1, let top = stack.first else { return nil }
        done.append(top.branches + [(top.branchStart, p.count)])
        return done
    }

    /// The words as a tree of shared beginnings, in their order of preference.
    static func tree(_ words: [String], caseless: Bool) -> String {
        var out: [UInt8] = []
        tree(words.map { Array($0.utf8)[...] }, caseless: caseless, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `tree` on the words' bytes (plain words are ASCII), appended to `out`: the branches joined
    /// by `|`, a group `(?:…)` after each shared first character.
    private static func tree(_ words: [ArraySlice<UInt8>], caseless: Bool, into out: inout [UInt8]) {
        func key(_ b: UInt8) -> UInt8 { caseless && b >= 65 && b <= 90 ? b + 32 : b }
        var firstPart = true
        func part() {
            if !firstPart { out.append(124) }   // `|`
            firstPart = false
        }
        // A word that ends here matches wherever the longer ones do: it keeps its place, and the
        // words on either side of it are grouped apart.
        var segment: [ArraySlice<UInt8>] = []
        func flush() {
            // Grouped by first character, in order of first appearance; each group keeps its order.
            var groups: [(key: UInt8, words: [ArraySlice<UInt8>])] = []
            for w in segment {
                guard let first = w.first else { continue }
                let k = key(first)
                if let g = groups.firstIndex(where: { $0.key == k }) { groups[g].words.append(w) } else { groups.append((k, [w])) }
            }
            for g in groups {
                part()
                guard g.words.count > 1, let head = g.words[0].first else {
                    out.append(contentsOf: g.words[0])
                    continue
                }
                out.append(head)
                out.append(contentsOf: [40, 63, 58])   // `(?:`
                tree(g.words.map { $0.dropFirst() }, caseless: caseless, into: &out)
                out.append(41)   // `)`
            }
            segment = []
        }
        for w in words {
            if w.isEmpty {
                flush()
                part()
            } else {
                segment.append(w)
            }
        }
        flush()
    }
}
