import Foundation
import Testing
@testable import TKCore

@Suite struct WordsWrittenTests {
    func count(_ old: String?, _ new: String, movedIn: [String: Int] = [:], importWords: Int = 500) -> WordsWritten.Outcome {
        WordsWritten.count(previous: old, new: new, movedIn: movedIn, importWords: importWords)
    }

    @Test func insertedWordsCount() {
        let r = count("One two three.\n", "One two three four five.\n")
        #expect(r.count == WordsWritten.Count(written: 2, imported: 0, deleted: 0))
    }

    @Test func deletionsNeverSubtract() {
        let r = count("Alpha beta gamma delta.\n\nSecond one here.\n", "Alpha delta.\n\nSecond one here and more.\n")
        #expect(r.count.written == 2)
        #expect(r.count.deleted == 2)
    }

    @Test func replacingAWordIsOneWrittenOneDeleted() {
        let r = count("The cat sat.\n", "The dog sat.\n")
        #expect(r.count == WordsWritten.Count(written: 1, imported: 0, deleted: 1))
    }

    @Test func punctuationAroundAWordIsNotANewWord() {
        let r = count("One two four.\n", "One two four, five.\n")
        #expect(r.count.written == 1)
        #expect(r.count.deleted == 0)
    }

    @Test func aParagraphMovedWithinTheDocumentIsNotWriting() {
        let old = "# Title\n\nFirst paragraph of the text.\n\nSecond paragraph with words.\n\nThird one at the end.\n"
        let new = "# Title\n\nThird one at the end.\n\nFirst paragraph of the text.\n\nSecond paragraph with words.\n"
        let r = count(old, new)
        #expect(r.count.isZero)
        #expect(r.removed.isEmpty)
    }

    @Test func aParagraphFromAnotherDocumentIsAMove() {
        let moved = "This paragraph came from the other chapter."
        let key = WordsWritten.paragraphs(moved)[0].key
        let r = count("Existing text.\n", "Existing text.\n\n\(moved)\n", movedIn: [key: 1])
        #expect(r.count.isZero)
        #expect(r.movedIn.count == 1)
        let without = count("Existing text.\n", "Existing text.\n\n\(moved)\n")
        #expect(without.count.written == 7)
        #expect(without.added.map(\.words) == [7])
    }

    @Test func aLargePasteIsImportedButTypingBesideItIsWritten() {
        let paste = (0..<60).map { "Imported paragraph \($0) has exactly nine words in it." }.joined(separator: "\n\n")
        let old = "Start.\n\nMiddle.\n\nEnd.\n"
        let new = "Start typed three more.\n\nMiddle.\n\n\(paste)\n\nEnd.\n"
        let r = count(old, new, importWords: 500)
        #expect(r.count.imported == 540)
        #expect(r.count.written == 3)
        #expect(r.added.isEmpty)
        // Under the threshold it is writing.
        #expect(count(old, new, importWords: 1000).count.written == 543)
    }

    @Test func frontMatterIsLeftOut() {
        let r = count("---\ntitle: A\n---\nBody text.\n", "---\ntitle: A longer title\nword_goal: 300\n---\nBody text.\n")
        #expect(r.count.isZero)
        #expect(WordsWritten.wordCount("---\ntitle: x\n---\n# Head\n\n- one two\n") == 3)
    }

    @Test func aNewDocumentCountsItsWords() {
        #expect(count(nil, "Four words right here.\n").count.written == 4)
    }

    @Test func sequenceDiffIsMinimal() {
        let a = Array("ABCABBA"), b = Array("CBABAC")
        let ops = SequenceDiff.diff(a, b)
        let equal = ops.filter { if case .equal = $0 { return true } else { return false } }.count
        #expect(equal == 4)
        // Replaying the script gives b.
        var out: [Character] = []
        for op in ops {
            switch op {
            case .equal(let i, _): out.append(a[i])
            case .insert(let j): out.append(b[j])
            case .delete: break
            }
        }
        #expect(out == b)
    }

    @Test func compressionRoundTrips() throws {
        let text = Array(String(repeating: "Words and more words. ", count: 500).utf8)
        let z = try Compression.compress(text)
        #expect(z.count < text.count / 10)
        #expect(try Compression.decompress(z) == text)
        #expect(throws: Compression.Failure.self) { try Compression.decompress([1, 2, 3, 4]) }
    }
}

@Suite struct ProgressCalendarTests {
    @Test func theDayStartsAtTheConfiguredHour() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let late = try #require(RFC3339.date("2026-11-24T03:30:00Z"))
        #expect(ProgressCalendar.day(of: late, dayStarts: "04:00", timeZone: utc) == "2026-11-23")
        #expect(ProgressCalendar.day(of: late, dayStarts: "00:00", timeZone: utc) == "2026-11-24")
    }

    @Test func paceCountsOnlyWritingDays() {
        // 2026-11-23 is a Monday; to Friday 27th, weekdays only: 5 days.
        #expect(ProgressCalendar.writingDaysLeft(today: "2026-11-23", deadline: "2026-11-29",
                                                 writingDays: ["mon", "tue", "wed", "thu", "fri"]) == 5)
        #expect(ProgressCalendar.wordsPerDayNeeded(target: 10_000, wordsAtDayStart: 5_000, today: "2026-11-23",
                                                   deadline: "2026-11-29", writingDays: ["mon", "tue", "wed", "thu", "fri"]) == 1000)
        #expect(ProgressCalendar.wordsPerDayNeeded(target: 100, wordsAtDayStart: 500, today: "2026-11-23",
                                                   deadline: "2026-11-29", writingDays: []) == 0)
    }

    @Test func streaksSkipRestDaysAndWaitForToday() {
        let written = ["2026-11-18": 600, "2026-11-19": 700, "2026-11-20": 550, "2026-11-23": 100]
        // Sat 21 and Sun 22 are rest days: the streak goes on; today is not met yet.
        #expect(ProgressCalendar.streak(written: written, today: "2026-11-23", goal: 500,
                                        writingDays: ["mon", "tue", "wed", "thu", "fri"]) == 3)
        // Every day a writing day: the weekend broke it.
        #expect(ProgressCalendar.streak(written: written, today: "2026-11-23", goal: 500, writingDays: []) == 0)
        var met = written
        met["2026-11-23"] = 500
        #expect(ProgressCalendar.streak(written: met, today: "2026-11-23", goal: 500,
                                        writingDays: ["mon", "tue", "wed", "thu", "fri"]) == 4)
    }

    /// The byte scanner counts as `words(_:)` does: pieces between any Unicode white space that
    /// hold a letter or a digit; CRLF ends a line like LF; front matter closed by CRLF is skipped.
    @Test func countsOnTheBytesAsOnCharacters() {
        #expect(WordsWritten.wordCount("One\u{00A0}two\u{2003}three — four 5 # -\n") == 5)
        #expect(WordsWritten.wordCount("Caf\u{E9} na\u{EF}ve \u{65E5}\u{672C} \u{1F600}\n") == 3)
        #expect(WordsWritten.paragraphs("a b\r\nc\r\n\r\nd e\r\n").map(\.key) == ["a b c", "d e"])
        #expect(WordsWritten.paragraphs("---\r\ntitle: T\r\n---\r\nBody here.\r\n").map(\.key) == ["Body here."])
        #expect(WordsWritten.paragraphs("---\ntitle: T\n---").isEmpty)
        #expect(WordsWritten.paragraphs("---\nnot closed\n\nText.\n").map(\.key) == ["--- not closed", "Text."])
        let samples = ["", "word", "  lead and trail  \n", "x\ty\u{000B}z\n\n\n# h\n- item\n", "\u{FEFF}bom text", "a\u{3000}b"]
        for s in samples {
            #expect(WordsWritten.wordCount(s) == WordsWritten.paragraphs(s).reduce(0) { $0 + $1.words })
            #expect(WordsWritten.wordCount(bytes: Array(s.utf8)) == WordsWritten.wordCount(s))
            let reference = WordsWritten.words(s).count
            if !s.hasPrefix("---") { #expect(WordsWritten.wordCount(s) == reference, "\(s.debugDescription)") }
        }
    }
}
