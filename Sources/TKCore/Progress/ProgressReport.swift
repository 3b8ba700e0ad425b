import Foundation

/// What `tk-agent progress --json` prints (the contract's shape).
public struct ProgressReport: Codable, Sendable, Equatable {
    public struct Today: Codable, Sendable, Equatable {
        public var date: String
        public var written: Int
        public var imported: Int
        public var deleted: Int
        public var goal: Int?
        public var met: Bool
        enum CodingKeys: String, CodingKey { case date, written, imported, deleted, goal, met }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(date, forKey: .date)
            try c.encode(written, forKey: .written)
            try c.encode(imported, forKey: .imported)
            try c.encode(deleted, forKey: .deleted)
            try c.encode(goal, forKey: .goal) // null without a goal
            try c.encode(met, forKey: .met)
        }
    }
    public struct Pace: Codable, Sendable, Equatable {
        public var targetWords: Int
        public var deadline: String
        public var wordsPerDayNeeded: Int
        enum CodingKeys: String, CodingKey {
            case targetWords = "target_words", deadline, wordsPerDayNeeded = "words_per_day_needed"
        }
    }
    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var written: Int
        public var imported: Int
        public var deleted: Int
    }
    public var today: Today
    public var streak: Int
    public var pace: Pace?
    public var days: [Day]

    enum CodingKeys: String, CodingKey { case today, streak, pace, days }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(today, forKey: .today)
        try c.encode(streak, forKey: .streak)
        try c.encode(pace, forKey: .pace) // null when there is no target
        try c.encode(days, forKey: .days)
    }

    /// The pace toward `progress.target_words` by `progress.deadline`, or nil without both.
    public static func pace(service: HistoryService, project: PathBytes?, settings: ProgressSettings, today: String,
                            todayCount: WordsWritten.Count) throws -> Pace? {
        guard let target = settings.targetWords, target > 0, let deadline = settings.deadline,
              ProgressCalendar.parseDay(deadline) != nil else { return nil }
        let roots = try project.map { [$0] } ?? service.projects()
        let words = try roots.reduce(0) { $0 + (try service.projectWords(project: $1)) }
        let atStart = max(0, words - (todayCount.written + todayCount.imported - todayCount.deleted))
        return Pace(targetWords: target, deadline: deadline,
                    wordsPerDayNeeded: ProgressCalendar.wordsPerDayNeeded(
                        target: target, wordsAtDayStart: atStart, today: today, deadline: deadline, writingDays: settings.writingDays))
    }

    /// Today's goal: `progress.daily_goal`, else the pace a target needs (nil: no goal).
    public static func todayGoal(service: HistoryService, project: PathBytes?, settings: ProgressSettings) throws -> Int? {
        if let g = settings.dailyGoal, g > 0 { return g }
        let today = ProgressCalendar.day(of: service.now.date(), dayStarts: settings.dayStarts)
        let count = try service.days(project: project, from: today, to: today)[today] ?? WordsWritten.Count()
        return try pace(service: service, project: project, settings: settings, today: today, todayCount: count)?.wordsPerDayNeeded
    }

    /// The report for one project (or all, nil) over the last `days` days.
    public static func build(service: HistoryService, project: PathBytes?, settings: ProgressSettings, days: Int) throws -> ProgressReport {
        let today = ProgressCalendar.day(of: service.now.date(), dayStarts: settings.dayStarts)
        let n = max(1, min(days, 3660))
        let first = ProgressCalendar.adding(-(n - 1), to: today)
        let counts = try service.days(project: project, from: first, to: today)
        let todayCount = counts[today] ?? WordsWritten.Count()
        let pace = try pace(service: service, project: project, settings: settings, today: today, todayCount: todayCount)
        let goal = settings.dailyGoal.flatMap { $0 > 0 ? $0 : nil } ?? pace?.wordsPerDayNeeded
        let streak = ProgressCalendar.streak(written: try service.writtenByDay(project: project), today: today, goal: goal,
                                             writingDays: settings.writingDays)
        var list: [Day] = []
        var d = first
        for _ in 0..<n {
            let c = counts[d] ?? WordsWritten.Count()
            list.append(Day(date: d, written: c.written, imported: c.imported, deleted: c.deleted))
            d = ProgressCalendar.adding(1, to: d)
        }
        let met = goal.map { todayCount.written >= $0 } ?? false
        return ProgressReport(
            today: Today(date: today, written: todayCount.written, imported: todayCount.imported, deleted: todayCount.deleted,
                         goal: goal, met: met),
            streak: streak, pace: pace, days: list)
    }
}
