import Foundation

/// The counting rules for words written, as pure functions of two versions of a document.
///
/// - Inserted words count; deleted words are counted apart and never subtract.
/// - A paragraph found unchanged elsewhere in the document (moved) is not new writing; nor is one
///   that left another document of the project (`movedIn`: the caller's pool).
/// - One contiguous insertion of more than `importWords` words (a paste, an import) is imported.
public enum WordsWritten {
    public struct Count: Equatable, Sendable, Codable {
        public var written = 0
        public var imported = 0
        public var deleted = 0
        public init(written: Int = 0, imported: Int = 0, deleted: Int = 0) {
            self.written = written; self.imported = imported; self.deleted = deleted
        }
        public static func + (a: Count, b: Count) -> Count {
            Count(written: a.written + b.written, imported: a.imported + b.imported, deleted: a.deleted + b.deleted)
        }
        public var isZero: Bool { written == 0 && imported == 0 && deleted == 0 }
    }

    /// A paragraph by its normalized text (whitespace collapsed), with its word count.
    public struct Paragraph: Hashable, Sendable {
        public var key: String
        public var words: Int
    }

    /// What one save did.
    public struct Outcome: Equatable, Sendable {
        public var count = Count()
        /// Paragraphs that left the document (not moved within it): candidates for a move to another document.
        public var removed: [Paragraph] = []
        /// Whole new paragraphs counted as written: a later cut of the same text elsewhere makes them a move.
        public var added: [Paragraph] = []
        /// Paragraphs taken from `movedIn` (moved here from another document).
        public var movedIn: [Paragraph] = []
    }

    /// The paragraphs of a markdown text: blocks between blank lines, front matter left out.
    ///
    /// Works on the UTF-8 bytes (a first scan counts every document of a project; `Character`
    /// iteration made this the largest cost of `tk-agent index`). Lines end at LF or CRLF; a
    /// paragraph's key is its tokens (split at space, tab and CR) joined by one space.
    public static func paragraphs(_ text: String) -> [Paragraph] {
        var text = text
        return text.withUTF8 { paragraphs(utf8: $0) }
    }

    static func paragraphs(utf8 u: UnsafeBufferPointer<UInt8>) -> [Paragraph] {
        var out: [Paragraph] = []
        scan(u) { key, words in out.append(Paragraph(key: String(decoding: key, as: UTF8.self), words: words)) }
        return out
    }

    /// The paragraphs' words only (no keys built).
    static func wordCount(utf8 u: UnsafeBufferPointer<UInt8>) -> Int {
        var total = 0
        scan(u, keys: false) { _, words in total += words }
        return total
    }

    /// Calls `paragraph` with each paragraph's key bytes (empty when `keys` is false) and words.
    private static func scan(_ u: UnsafeBufferPointer<UInt8>, keys: Bool = true, _ paragraph: ([UInt8], Int) -> Void) {
        let n = u.count
        var i = bodyStart(u)
        var key: [UInt8] = []
        var tokens = 0, words = 0
        func flush() {
            if tokens > 0 {
                paragraph(key, words)
                key.removeAll(keepingCapacity: true)
                tokens = 0
                words = 0
            }
        }
        while i < n {
            // One line: [i, lineEnd).
            var lineEnd = i
            while lineEnd < n && u[lineEnd] != 0x0A { lineEnd += 1 }
            var lineHasToken = false
            var j = i
            while j < lineEnd {
                let b = u[j]
                if b == 0x20 || b == 0x09 || b == 0x0D { j += 1; continue }
                var k = j
                while k < lineEnd, u[k] != 0x20, u[k] != 0x09, u[k] != 0x0D { k += 1 }
                if keys {
                    if tokens > 0 { key.append(0x20) }
                    key.append(contentsOf: UnsafeBufferPointer(rebasing: u[j..<k]))
                }
                tokens += 1
                words += wordCount(token: UnsafeBufferPointer(rebasing: u[j..<k]))
                lineHasToken = true
                j = k
            }
            if !lineHasToken { flush() }
            i = lineEnd + 1
        }
        flush()
    }

    /// Where the text after the front matter starts (0 without one).
    static func bodyStart(_ u: UnsafeBufferPointer<UInt8>) -> Int {
        let n = u.count
        guard n >= 4, u[0] == 0x2D, u[1] == 0x2D, u[2] == 0x2D else { return 0 }
        let rest: Int
        if u[3] == 0x0A { rest = 4 } else if n >= 5, u[3] == 0x0D, u[4] == 0x0A { rest = 5 } else { return 0 }
        // The first "\n---" followed by LF, CRLF or the end of the text closes it.
        var i = rest - 1
        while i + 3 < n {
            if u[i] == 0x0A, u[i + 1] == 0x2D, u[i + 2] == 0x2D, u[i + 3] == 0x2D {
                let after = i + 4
                if after == n { return n }
                if u[after] == 0x0A { return after + 1 }
                if u[after] == 0x0D, after + 1 < n, u[after + 1] == 0x0A { return after + 2 }
            }
            i += 1
        }
        return 0
    }

    /// The words in one space-free token: its pieces between Unicode white space (no-break
    /// space, em space…) that hold a letter or a digit, as `words(_:)` counts them.
    static func wordCount(token u: UnsafeBufferPointer<UInt8>) -> Int {
        var ascii = true
        for b in u where b >= 0x80 { ascii = false; break }
        if ascii {
            // Pieces split at the other ASCII white space (VT, FF) only.
            var count = 0, hasAlnum = false
            for b in u {
                if b == 0x0B || b == 0x0C {
                    if hasAlnum { count += 1 }
                    hasAlnum = false
                } else if (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) {
                    hasAlnum = true
                }
            }
            return hasAlnum ? count + 1 : count
        }
        return words(String(decoding: u, as: UTF8.self)).count
    }

    /// The words of a text: runs without whitespace that hold a letter or a digit (markdown marks
    /// such as `#`, `-` or `>` alone are not words).
    public static func words<S: StringProtocol>(_ s: S) -> [S.SubSequence] {
        s.split(whereSeparator: { $0.isWhitespace }).filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
    }

    /// A word as the diff compares it: without the punctuation around it, so that "four." becoming
    /// "four five." adds one word, not two.
    static func comparable(_ w: Substring) -> String {
        String(w.drop(while: { !$0.isLetter && !$0.isNumber }).reversed().drop(while: { !$0.isLetter && !$0.isNumber }).reversed())
    }

    /// The words in a document (front matter left out), as the progress figures count them.
    public static func wordCount(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { wordCount(utf8: $0) }
    }

    /// The same count straight from a file's bytes.
    public static func wordCount(bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { wordCount(utf8: $0) }
    }

    /// Counts what a save wrote.
    /// - Parameters:
    ///   - previous: the version before the save (nil: the document is new).
    ///   - new: the version saved.
    ///   - movedIn: paragraphs that recently left other documents of the project (by key, with how
    ///     many times): a new paragraph among them is a move, not writing.
    ///   - importWords: a contiguous insertion of more words than this is imported.
    public static func count(previous: String?, new: String, movedIn: [String: Int] = [:], importWords: Int) -> Outcome {
        let old = paragraphs(previous ?? "")
        let cur = paragraphs(new)
        var outcome = Outcome()
        // Paragraphs present in both (wherever they are) are unchanged or moved within the document.
        var oldLeft: [String: Int] = [:]
        for p in old { oldLeft[p.key, default: 0] += 1 }
        var pool = movedIn
        var newCandidate = [Bool](repeating: false, count: cur.count)
        for (i, p) in cur.enumerated() {
            if let n = oldLeft[p.key], n > 0 {
                oldLeft[p.key] = n - 1
            } else if let n = pool[p.key], n > 0 {
                pool[p.key] = n - 1
                outcome.movedIn.append(p)
            } else {
                newCandidate[i] = true
            }
        }
        var oldCandidate = [Bool](repeating: false, count: old.count)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            if let n = oldLeft[old[i].key], n > 0 {
                oldLeft[old[i].key] = n - 1
                oldCandidate[i] = true
            }
        }
        for (i, p) in old.enumerated() where oldCandidate[i] { outcome.removed.append(p) }

        // The words of the changed paragraphs, in order; a break token separates paragraphs that
        // are not next to each other, so that two insertions far apart never count as one.
        let breakToken = "\u{0}break"
        let paraToken = "\u{0}para"
        func tokens(_ list: [Paragraph], _ take: [Bool], breakMark: String) -> [String] {
            var out: [String] = []
            var last = -2
            for (i, p) in list.enumerated() where take[i] {
                if !out.isEmpty { out.append(i == last + 1 ? paraToken : breakMark) }
                out += words(p.key).map(comparable)
                last = i
            }
            return out
        }
        let a = tokens(old, oldCandidate, breakMark: breakToken + "old")
        let b = tokens(cur, newCandidate, breakMark: breakToken)
        var run = 0
        func endRun() {
            if run > importWords { outcome.count.imported += run } else { outcome.count.written += run }
            run = 0
        }
        for op in SequenceDiff.diff(a, b) {
            switch op {
            case .equal:
                endRun()
            case .delete(let i):
                if !a[i].hasPrefix("\u{0}") { outcome.count.deleted += 1 }
            case .insert(let j):
                if b[j].hasPrefix(breakToken) { endRun() } else if !b[j].hasPrefix("\u{0}") { run += 1 }
            }
        }
        endRun()
        // Whole new paragraphs, remembered in case the same text is cut elsewhere later (a move
        // done paste-first). Imported ones are left out: they never counted as written.
        if outcome.count.imported == 0 {
            let oldKeys = Set(old.map(\.key))
            for (i, p) in cur.enumerated() where newCandidate[i] && !oldKeys.contains(p.key) && p.words > 0 {
                outcome.added.append(p)
            }
        }
        return outcome
    }
}
