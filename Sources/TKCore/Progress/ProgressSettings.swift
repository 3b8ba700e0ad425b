import Foundation

/// `progress.*`: goals and the counting rules of words written.
public struct ProgressSettings: Codable, Sendable, Equatable {
    /// Words to write each writing day (nil: none, unless a target gives a pace).
    public var dailyGoal: Int?
    /// The project's length to reach by `deadline` (words in all its documents).
    public var targetWords: Int?
    /// `YYYY-MM-DD`, the last day of writing toward `target_words`.
    public var deadline: String?
    /// The days that count toward the pace and the streak: `mon` … `sun`.
    public var writingDays: [String]
    /// When a writing day begins, local time `HH:MM` (a night's writing after midnight counts for the day before).
    public var dayStarts: String
    /// A single insertion of more words than this is imported, not written.
    public var importWords: Int
}

/// `history.*`: how often versions are kept while a document is edited, and for how long.
public struct HistorySettings: Codable, Sendable, Equatable {
    public struct Keep: Codable, Sendable, Equatable {
        /// Every snapshot of the last N days is kept.
        public var allDays: Int
        /// Then one a day for N more days; older ones, one a week.
        public var dailyDays: Int
    }
    public var intervalMinutes: Double
    public var keep: Keep
}

/// Days, goals, pace and streaks: pure functions of plain values.
public enum ProgressCalendar {
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// `day_starts` as minutes after midnight (a malformed value means 04:00).
    public static func dayStartMinutes(_ s: String) -> Int {
        let parts = s.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else {
            return 240
        }
        return h * 60 + m
    }

    static func calendar(_ tz: TimeZone) -> Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = tz
        return c
    }

    /// The writing day (`YYYY-MM-DD`) a moment belongs to.
    public static func day(of date: Date, dayStarts: String, timeZone: TimeZone = .current) -> String {
        let shifted = date.addingTimeInterval(-Double(dayStartMinutes(dayStarts)) * 60)
        let c = calendar(timeZone).dateComponents([.year, .month, .day], from: shifted)
        return String(format: "%04d-%02d-%02d", c.year ?? 1970, c.month ?? 1, c.day ?? 1)
    }

    /// A `YYYY-MM-DD` day as a date at noon UTC (for stepping through days).
    public static func parseDay(_ s: String) -> Date? {
        let p = s.split(separator: "-")
        guard p.count == 3, let y = Int(p[0]), let m = Int(p[1]), let d = Int(p[2]) else { return nil }
        var comps = DateComponents()
        comps.year = y; comps.month = m; comps.day = d; comps.hour = 12
        guard let date = calendar(TimeZone(identifier: "UTC") ?? .current).date(from: comps) else { return nil }
        // Reject 2026-02-31 and the like.
        return format(date) == String(format: "%04d-%02d-%02d", y, m, d) ? date : nil
    }

    static func format(_ noonUTC: Date) -> String {
        let c = calendar(TimeZone(identifier: "UTC") ?? .current).dateComponents([.year, .month, .day], from: noonUTC)
        return String(format: "%04d-%02d-%02d", c.year ?? 1970, c.month ?? 1, c.day ?? 1)
    }

    /// The day `n` days after `day` (negative: before).
    public static func adding(_ n: Int, to day: String) -> String {
        guard let d = parseDay(day) else { return day }
        return format(d.addingTimeInterval(Double(n) * 86_400))
    }

    /// Whether a day is one of the writing days (an empty or unreadable list means every day).
    public static func isWritingDay(_ day: String, writingDays: [String]) -> Bool {
        let wanted = Set(writingDays.map { String($0.lowercased().prefix(3)) }).intersection(dayNames)
        guard !wanted.isEmpty, let d = parseDay(day) else { return true }
        let weekday = calendar(TimeZone(identifier: "UTC") ?? .current).component(.weekday, from: d)
        return wanted.contains(dayNames[(weekday - 1) % 7])
    }

    /// The writing days from `today` to `deadline`, both included.
    public static func writingDaysLeft(today: String, deadline: String, writingDays: [String]) -> Int {
        guard today <= deadline else { return 0 }
        var n = 0
        var d = today
        var steps = 0
        while d <= deadline && steps < 20_000 {
            if isWritingDay(d, writingDays: writingDays) { n += 1 }
            d = adding(1, to: d)
            steps += 1
        }
        return n
    }

    /// The words a day must bring to reach the target on time, worked out from where the day began
    /// (so writing today does not move today's figure).
    /// - Parameters:
    ///   - wordsAtDayStart: the project's words when today began (its words now minus today's net change).
    public static func wordsPerDayNeeded(target: Int, wordsAtDayStart: Int, today: String, deadline: String,
                                         writingDays: [String]) -> Int {
        let left = max(0, target - wordsAtDayStart)
        if left == 0 { return 0 }
        let days = writingDaysLeft(today: today, deadline: deadline, writingDays: writingDays)
        if days == 0 { return left }
        return (left + days - 1) / days
    }

    /// Consecutive writing days with the goal met, ending today (or yesterday while today is not met
    /// yet). Days that are not writing days neither count nor break the streak. Without a goal, a
    /// day with any words written counts.
    public static func streak(written: [String: Int], today: String, goal: Int?, writingDays: [String]) -> Int {
        func met(_ d: String) -> Bool {
            let w = written[d] ?? 0
            return goal.map { w >= max(1, $0) } ?? (w > 0)
        }
        var n = 0
        var d = today
        if !met(today) { d = adding(-1, to: today) }
        let earliest = written.keys.min() ?? today
        while d >= earliest {
            if met(d) {
                n += 1
            } else if isWritingDay(d, writingDays: writingDays) {
                break
            }
            d = adding(-1, to: d)
        }
        return n
    }
}
