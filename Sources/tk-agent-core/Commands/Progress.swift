import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Progress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "progress",
            abstract: "Words written today against the goal, the pace to the deadline, the streak and a chart.",
            discussion: """
                Words written are counted from each save the agent (or `tk-agent index`) sees: inserted words count, \
                deletions never subtract, moved paragraphs are not new writing, and one insertion of more than \
                progress.import_words words is imported. The day begins at progress.day_starts.
                """)
        @Option(name: .long, help: "One project (a folder); default: all projects, with the user configuration.") var project: String?
        @Option(name: .long, parsing: .unconditional, help: "Days in the chart, 1 to 3660 (default 14).") var days: Int = 14
        @Flag(name: .long, help: "Fill the days without figures from the versions kept (needs --project).") var rebuild = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if days < 1 || days > 3660 { throw usageError("--days must be between 1 and 3660 (got \(days))") }
            if rebuild && project == nil { throw ValidationError("--rebuild needs --project") }
        }

        func run() async throws {
            let paths = Paths.resolve()
            let database = try openDatabase()
            let root = try project.map { try KnownProject.require($0, database: database) }
            let loaded = ConfigurationStore(paths: paths).load(project: root)
            for p in loaded.problems { printError("warning: \(p)") }
            let service = HistoryService(paths: paths, database: database)
            if rebuild, let root {
                do {
                    let filled = try service.rebuildProgress(project: root, settings: loaded.config.progress)
                    printError(filled.isEmpty ? "no day to fill from the versions kept" : "filled \(filled.count) day(s) from the versions kept")
                } catch { throw CLIError("cannot rebuild the figures: \(error)") }
            }
            let report: ProgressReport
            do { report = try ProgressReport.build(service: service, project: root, settings: loaded.config.progress, days: days) } catch {
                throw CLIError("cannot read the progress figures: \(error)")
            }
            if output.json {
                print(JSON.string(report))
                return
            }
            print(ProgressText.render(report, documents: root.flatMap { try? documentLines(service: service, root: $0, day: report.today.date) } ?? [],
                                      terminal: isatty(STDOUT_FILENO) != 0, color: stdoutIsColorTerminal))
        }

        /// Today's words per document, with the front matter's `word_goal` where set.
        func documentLines(service: HistoryService, root: PathBytes, day: String) throws -> [String] {
            try service.documents(project: root, day: day).prefix(10).map { entry in
                var line = "  \(entry.path): \(entry.count.written) written"
                if entry.count.imported > 0 { line += ", \(entry.count.imported) imported" }
                if let bytes = try? FileSystem.read(root.appending(entry.path), limit: 64 << 20), let goal = WordGoal.read(bytes) {
                    let words = WordsWritten.wordCount(String(decoding: bytes, as: UTF8.self))
                    line += "; \(words)/\(goal) words (\(min(100, words * 100 / goal))% of its word_goal)"
                }
                return line
            }
        }
    }
}

/// The text of `tk-agent progress`: summary lines and a bar chart with the goal line.
enum ProgressText {
    static func render(_ r: ProgressReport, documents: [String], terminal: Bool, color: Bool) -> String {
        if let quiet = quiet(r) { return quiet }
        var lines: [String] = []
        var today = "today (\(r.today.date)): \(r.today.written) words written"
        if let g = r.today.goal { today += " of \(g)" + (r.today.met ? " — goal met" : " (\(max(0, g - r.today.written)) to go)") }
        if r.today.imported > 0 { today += ", \(r.today.imported) imported" }
        if r.today.deleted > 0 { today += ", \(r.today.deleted) deleted" }
        lines.append(today)
        if let p = r.pace {
            lines.append("pace: \(p.wordsPerDayNeeded) words a writing day to reach \(p.targetWords) by \(p.deadline)")
        }
        lines.append("streak: \(r.streak) day\(r.streak == 1 ? "" : "s")")
        lines += documents
        lines.append("")
        let goal = r.today.goal ?? 0
        if terminal {
            let width = 40
            let top = max(1, r.days.map(\.written).max() ?? 0, goal)
            let goalCol = goal > 0 ? min(width - 1, goal * width / top) : -1
            for d in r.days {
                let n = d.written * width / top
                var bar = ""
                for col in 0..<width {
                    if col < n { bar += "█" } else if col == goalCol { bar += "│" } else { bar += " " }
                }
                let met = goal > 0 && d.written >= goal
                if color && met { bar = "\u{1B}[32m" + bar + "\u{1B}[0m" }
                lines.append("\(String(d.date.dropFirst(5))) \(bar) \(d.written)")
            }
            if goal > 0 { lines.append("      (│ = the goal, \(goal) words)") }
        } else {
            for d in r.days {
                lines.append("\(d.date)  written \(d.written)  imported \(d.imported)  deleted \(d.deleted)"
                    + (goal > 0 ? (d.written >= goal ? "  goal met" : "") : ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension ProgressText {
    /// With no goal, no deadline and nothing written, imported or deleted in the days shown: one
    /// short paragraph instead of a chart of zeros; nil otherwise.
    static func quiet(_ r: ProgressReport) -> String? {
        guard r.today.goal == nil, r.pace == nil,
              r.days.allSatisfy({ $0.written == 0 && $0.imported == 0 && $0.deleted == 0 }),
              r.today.written == 0, r.today.imported == 0, r.today.deleted == 0 else { return nil }
        let span = r.days.count == 1 ? "today" : "in the last \(r.days.count) days"
        return "No words written \(span) (today is \(r.today.date)) and no goal set. Words are counted from each save "
            + "the running agent sees; set a goal with `tk-agent config set progress.daily_goal 500`."
    }
}

/// Today's words in `status` (text line and a `progress` key in `--json`).
enum ProgressStatus {
    struct Figure: Encodable { var date: String; var written: Int; var imported: Int; var goal: Int?; var met: Bool }

    static func today(paths: Paths) -> Figure? {
        guard let db = try? AppDatabase.open(paths: paths) else { return nil }
        let settings = ConfigurationStore(paths: paths).user().config.progress
        guard let r = try? ProgressReport.build(service: HistoryService(paths: paths, database: db), project: nil,
                                                settings: settings, days: 1) else { return nil }
        return Figure(date: r.today.date, written: r.today.written, imported: r.today.imported, goal: r.today.goal, met: r.today.met)
    }

    static func json(_ snapshot: StatusSnapshot, _ figure: Figure?) -> String {
        guard let figure, var tree = try? JSONValue.parse(JSON.encode(snapshot)), case .object(var o) = tree,
              let f = try? JSONValue.parse(JSON.encode(figure)) else { return JSON.string(snapshot) }
        o["progress"] = f
        tree = .object(o)
        return JSON.string(tree)
    }

    static func line(_ figure: Figure?) -> String {
        guard let f = figure else { return "" }
        var s = "\nwritten today: \(f.written) words"
        if let g = f.goal { s += " of \(g)" + (f.met ? " (goal met)" : "") }
        if f.imported > 0 { s += ", \(f.imported) imported" }
        return s
    }
}
