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
    public static func paragraphs(_ text: String) -> [Paragraph] {
        var body = Substring(text)
        if body.hasPrefix("---\n") || body.hasPrefix("---\r\n") {
            let rest = body.dropFirst(4)
            if let end = rest.range(of: "\n---\n") ?? rest.range(of: "\n---\r\n") {
                body = rest[end.upperBound...]
            } else if rest.hasSuffix("\n---") || rest.hasSuffix("\n---\n") {
                body = ""
            }
        }
        var out: [Paragraph] = []
        var current: [Substring] = []
        func flush() {
            if !current.isEmpty {
                let key = current.joined(separator: " ")
                let n = words(key).count
                if !key.isEmpty { out.append(Paragraph(key: key, words: n)) }
                current.removeAll()
            }
        }
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if tokens.isEmpty { flush() } else { current.append(contentsOf: tokens) }
        }
        flush()
        return out
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
    public static func wordCount(_ text: String) -> Int { paragraphs(text).reduce(0) { $0 + $1.words } }

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
