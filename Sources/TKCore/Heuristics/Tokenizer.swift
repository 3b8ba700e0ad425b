/// One word (or one opaque span such as inline code) of a prose block.
struct Token {
    var start: Int
    var end: Int
    /// `WordHash` of the lower-cased word (0 for opaque tokens).
    var hash: UInt64
    /// Lexicon entry of the word, or -1.
    var entry: Int32
    /// Word characters (Unicode scalars) in the token.
    var letters: Int32
    var flags: TokenFlags
}

struct TokenFlags: OptionSet {
    let rawValue: UInt16
    /// Inline code or a URL: counts as a word, never matches anything.
    static let opaque = TokenFlags(rawValue: 1 << 0)
    /// Punctuation (or a link target, an HTML tag…) stands between the previous token and this one.
    static let breakBefore = TokenFlags(rawValue: 1 << 1)
    /// A hyphen joins this token to the previous one (`well-known`).
    static let hyphenBefore = TokenFlags(rawValue: 1 << 2)
    /// Inside quotation marks (dialogue).
    static let inQuote = TokenFlags(rawValue: 1 << 3)
    /// Starts with an upper-case ASCII letter.
    static let capitalized = TokenFlags(rawValue: 1 << 4)
    /// First token of a sentence.
    static let sentenceStart = TokenFlags(rawValue: 1 << 5)
    /// Only digits (and inner `.`/`,`).
    static let numeric = TokenFlags(rawValue: 1 << 6)
}

/// A sentence: tokens `[firstToken, endToken)` and bytes `[start, end)` (terminal punctuation and
/// closing quotes included).
struct Sentence {
    var firstToken: Int
    var endToken: Int
    var start: Int
    var end: Int
}

/// Splits a prose block into tokens and sentences, at byte level.
///
/// Sentence ends are `.`, `!`, `?`, `…` followed by white space (or the end of the block), except
/// after abbreviations (`e.g.`, `Mr.`, `U.S.`), initials (`J. K.`), in decimals (`3.14`), and when the
/// next word starts with a lower-case letter (`"Really?" she asked`, `wait... what`).
struct Tokenizer {
    let lexicon: Lexicon

    // swiftlint:disable:next function_body_length cyclomatic_complexity
    func tokenize(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, tokens: inout [Token], sentences: inout [Sentence]) {
        tokens.removeAll(keepingCapacity: true)
        sentences.removeAll(keepingCapacity: true)
        let end = min(block.range.upperBound, p.count)
        var i = block.range.lowerBound
        var m = 0
        let masks = block.masks
        var pendingBreak = false
        var pendingHyphen = false
        var straightOpen = false
        var curlyDepth = 0
        var singleOpen = false
        var lowOpen = false
        var sentenceFirst = 0
        var sentenceStartByte = -1
        var pendingSentenceEnd = -1
        var lastContentEnd = i
        var lastTokenEnd = -1

        @inline(__always) func closeSentence(at endByte: Int) {
            if tokens.count > sentenceFirst, sentenceStartByte >= 0 {
                sentences.append(Sentence(firstToken: sentenceFirst, endToken: tokens.count,
                                          start: sentenceStartByte, end: max(endByte, sentenceStartByte)))
            }
            sentenceFirst = tokens.count
            sentenceStartByte = -1
        }

        @inline(__always) func push(_ t: Token) {
            var t = t
            if pendingSentenceEnd >= 0 {
                closeSentence(at: pendingSentenceEnd)
                pendingSentenceEnd = -1
            }
            if tokens.count == sentenceFirst {
                t.flags.insert(.sentenceStart)
                sentenceStartByte = t.start
            }
            if pendingBreak { t.flags.insert(.breakBefore) }
            if pendingHyphen && !pendingBreak && lastTokenEnd >= 0 { t.flags.insert(.hyphenBefore) }
            if straightOpen || curlyDepth > 0 || singleOpen || lowOpen { t.flags.insert(.inQuote) }
            pendingBreak = false
            pendingHyphen = false
            lastTokenEnd = t.end
            lastContentEnd = t.end
            tokens.append(t)
        }

        @inline(__always) func isWordStartAt(_ k: Int) -> Bool {
            guard k < end else { return false }
            let c = p[k]
            if c < 0x80 { return TextClass.isASCIIWordByte(c) }
            return TextClass.isWordScalar(TextClass.decode(p, k, end).scalar)
        }

        /// Whether the byte before `k` opens a quotation (start, space, bracket, dash).
        @inline(__always) func opensAfter(_ k: Int) -> Bool {
            if k <= block.range.lowerBound { return true }
            let b = p[k - 1]
            return b == 32 || b == 9 || b == 10 || b == 40 || b == 91 || b == 123 || b == 45 || b == 0x94 /* em dash tail */
                || b == 0xA0 || b == 42 || b == 95
        }

        while i < end {
            // Masked ranges.
            if m < masks.count, masks[m].range.lowerBound <= i {
                let mk = masks[m]
                m += 1
                if mk.range.upperBound <= i { continue }
                switch mk.kind {
                case .markup:
                    break
                case .code, .url:
                    push(Token(start: mk.range.lowerBound, end: mk.range.upperBound, hash: 0, entry: -1, letters: 5,
                               flags: [.opaque]))
                    pendingBreak = true
                case .link, .html:
                    pendingBreak = true
                }
                i = max(i, mk.range.upperBound)
                continue
            }
            let limit = m < masks.count ? min(end, masks[m].range.lowerBound) : end
            let c = p[i]

            if c < 0x80 {
                if TextClass.isASCIIWordByte(c) {
                    let t = scanWord(p, from: i, limit: limit)
                    push(t)
                    i = t.end
                    continue
                }
                switch c {
                case 32, 9, 10, 13:
                    i += 1
                case 45:   // -
                    if lastTokenEnd == i, i + 1 < limit, isWordStartAt(i + 1) {
                        pendingHyphen = true
                    } else {
                        pendingBreak = true
                    }
                    i += 1
                case 42, 95, 126:   // * _ ~ emphasis: transparent
                    i += 1
                case 34:   // "
                    if opensAfter(i) && !straightOpen { straightOpen = true } else { straightOpen = false }
                    pendingBreak = true
                    lastContentEnd = i + 1
                    i += 1
                case 46, 33, 63:   // . ! ?
                    i = sentencePunctuation(p, at: i, end: end, pendingSentenceEnd: &pendingSentenceEnd)
                    pendingBreak = true
                    lastContentEnd = i
                default:
                    pendingBreak = true
                    lastContentEnd = i + 1
                    i += 1
                }
                continue
            }

            let (s, len) = TextClass.decode(p, i, end)
            if TextClass.isWordScalar(s) {
                let t = scanWord(p, from: i, limit: limit)
                push(t)
                i = t.end
                continue
            }
            switch s {
            case 0xA0, 0x2000...0x200B, 0x202F, 0x205F, 0x3000:
                break   // spaces
            case 0x2010, 0x2011:   // hyphens
                if lastTokenEnd == i { pendingHyphen = true } else { pendingBreak = true }
            case 0x201C, 0x00AB:   // “ «
                if lowOpen && s == 0x201C { lowOpen = false } else { curlyDepth += 1 }
                pendingBreak = true
            case 0x201D, 0x00BB:   // ” »
                curlyDepth = max(0, curlyDepth - 1)
                pendingBreak = true
            case 0x201E:   // „
                lowOpen = true
                pendingBreak = true
            case 0x2018:   // ‘
                if opensAfter(i) { singleOpen = true }
                pendingBreak = true
            case 0x2019:   // ’ outside a word: closes a ‘ quotation
                singleOpen = false
                pendingBreak = true
            case 0x2026:   // …
                i = sentencePunctuation(p, at: i, end: end, pendingSentenceEnd: &pendingSentenceEnd)
                pendingBreak = true
                lastContentEnd = i
                continue
            default:
                pendingBreak = true
            }
            if s != 0xA0 && !(0x2000...0x200B).contains(s) { lastContentEnd = i + len }
            i += len
        }
        closeSentence(at: pendingSentenceEnd >= 0 ? pendingSentenceEnd : lastContentEnd)
    }

    /// Scans the word starting at `start`.
    @inline(__always)
    private func scanWord(_ p: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Token {
        var h = WordHash.offset
        var j = start
        var letters: Int32 = 0
        var numeric = true
        while j < limit {
            let c = p[j]
            if c < 0x80 {
                if TextClass.isASCIIWordByte(c) {
                    h = WordHash.add(h, (c >= 65 && c <= 90) ? c + 32 : c)
                    if c > 57 || c < 48 { numeric = false }
                    letters += 1
                    j += 1
                } else if c == 39, j + 1 < limit, j > start, isWordByteAt(p, j + 1, limit) {
                    h = WordHash.add(h, 39)
                    numeric = false
                    j += 1
                } else if (c == 46 || c == 44), numeric, j + 1 < limit, p[j + 1] >= 48, p[j + 1] <= 57 {
                    h = WordHash.add(h, c)   // 3.14, 10,000
                    j += 1
                } else {
                    break
                }
            } else {
                let (s, len) = TextClass.decode(p, j, limit)
                if TextClass.isWordScalar(s) {
                    for k in 0..<len { h = WordHash.add(h, p[j + k]) }
                    letters += 1
                    numeric = false
                    j += len
                } else if s == 0x2019, j > start, j + len < limit, isWordByteAt(p, j + len, limit) {
                    h = WordHash.add(h, 39)
                    numeric = false
                    j += len
                } else {
                    break
                }
            }
        }
        let hash = WordHash.finish(h)
        var flags: TokenFlags = []
        let first = p[start]
        if first >= 65 && first <= 90 { flags.insert(.capitalized) }
        if numeric { flags.insert(.numeric) }
        return Token(start: start, end: j, hash: hash, entry: Int32(lexicon.lookup(hash)), letters: letters, flags: flags)
    }

    @inline(__always)
    private func isWordByteAt(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, _ limit: Int) -> Bool {
        guard k < limit else { return false }
        let c = p[k]
        if c < 0x80 { return TextClass.isASCIIWordByte(c) }
        return TextClass.isWordScalar(TextClass.decode(p, k, limit).scalar)
    }

    /// Handles a run of `.`, `!`, `?`, `…` at `i`; sets `pendingSentenceEnd` when it ends a sentence.
    /// - Returns: the index after the run.
    private func sentencePunctuation(_ p: UnsafeBufferPointer<UInt8>, at i: Int, end: Int,
                                     pendingSentenceEnd: inout Int) -> Int {
        var j = i
        var dots = 0
        var strong = false
        var ellipsis = false
        while j < end {
            let c = p[j]
            if c == 46 { dots += 1; j += 1 } else if c == 33 || c == 63 { strong = true; j += 1 } else if c == 0xE2, j + 2 < end, p[j + 1] == 0x80, p[j + 2] == 0xA6 {
                ellipsis = true; j += 3
            } else { break }
        }
        if dots >= 2 { ellipsis = true }
        // Closing quotes, brackets and emphasis may follow the punctuation.
        var k = j
        while k < end {
            let c = p[k]
            if c == 34 || c == 39 || c == 41 || c == 93 || c == 42 || c == 95 { k += 1; continue }
            if c == 0xE2, k + 2 < end, p[k + 1] == 0x80, p[k + 2] == 0x9D || p[k + 2] == 0x99 { k += 3; continue }
            if c == 0xC2, k + 1 < end, p[k + 1] == 0xBB { k += 2; continue }
            break
        }
        let closerEnd = k
        // The run must be followed by white space or the end of the block.
        if k < end {
            let c = p[k]
            let isSpace = c == 32 || c == 9 || c == 10 || c == 13 || (c == 0xC2 && k + 1 < end && p[k + 1] == 0xA0)
            if !isSpace { return j }
        }
        // The next visible character.
        var n = k
        while n < end, p[n] == 32 || p[n] == 9 || p[n] == 10 || p[n] == 13 || p[n] == 62 || p[n] == 42 || p[n] == 95 { n += 1 }
        let next: UInt8 = n < end ? p[n] : 0
        let nextLower = next >= 97 && next <= 122
        let nextUpper = (next >= 65 && next <= 90) || next >= 0xC0
        if nextLower { return j }
        if !strong && dots == 1 && !ellipsis {
            // Abbreviation or initial before the dot?
            var b = i
            while b > 0, (TextClass.isASCIIWordByte(p[b - 1]) || p[b - 1] == 46) { b -= 1 }
            if b < i {
                let len = i - b
                if len == 1, p[b] >= 65, p[b] <= 90 { return j }   // an initial: J. K. Rowling
                var h = WordHash.offset
                for q in b..<i { h = WordHash.add(h, (p[q] >= 65 && p[q] <= 90) ? p[q] + 32 : p[q]) }
                let e = lexicon.lookup(WordHash.finish(h))
                if Self.numberAbbreviations.contains(WordHash.finish(h)), next >= 48, next <= 57 { return j }
                if e >= 0 {
                    let f = lexicon.flags[e]
                    if f.contains(.abbreviation) { return j }
                    if f.contains(.abbreviationMaybeEnd) && !nextUpper { return j }
                }
            }
        } else if ellipsis && !strong {
            if next != 0 && !nextUpper && !(next == 34 || next == 0xE2) { return j }
        }
        pendingSentenceEnd = closerEnd
        return j
    }

    /// "No. 5", "Nos. 3–4": abbreviations only before a number ("I said no." ends a sentence).
    static let numberAbbreviations: Set<UInt64> = [WordHash.of("no"), WordHash.of("nos")]
}
