import Foundation
import GRDB

/// One version kept of a document.
public struct SnapshotRecord: Sendable, Equatable, Codable {
    /// The row's id in the database (shared by every document; internal bookkeeping).
    public var rev: Int64
    public var path: String
    public var sha256: String
    public var time: String
    public var reason: String
    public var note: String?
    public var words: Int
    public var added: Int
    public var removed: Int
    /// The version's number among this document's versions kept, 1 for the oldest (what
    /// `history`, `diff` and `restore` show and take). 0 when not known.
    public var number: Int = 0

    /// What the version was kept for, in the words of `history`: `save`, `round`, `stage`,
    /// `accept`, `pipe`, `restore` or `snapshot` (the database keeps its older names).
    public var displayReason: String { Self.displayReason(reason) }

    /// The stored reason of a version in the words `history` shows.
    public static func displayReason(_ stored: String) -> String {
        switch stored {
        case "edit", "first": return "save"
        case "review": return "round"
        case "manual": return "snapshot"
        default: return stored
        }
    }
}

/// A document event as history sees it (plain values, from the document owner's changes).
public enum HistoryEvent: Sendable {
    /// Saved with these bytes (or seen for the first time). `created`: the file is new (made after
    /// history first saw the project), so a first sight of it is writing, not a seed.
    case saved(path: PathBytes, bytes: [UInt8], created: Bool = false)
    case moved(from: PathBytes, to: PathBytes, bytes: [UInt8])
    case removed(path: PathBytes)
}

/// Words written and versions kept: takes document events and keeps the progress figures, the
/// last-seen version of each document and its snapshots. Every call is a plain function of the
/// project, the path, the bytes, the time and the settings.
public struct HistoryService: Sendable {
    public let database: AppDatabase
    public let objects: ObjectStore
    public let now: Now

    public init(paths: Paths, database: AppDatabase, now: Now = .system) {
        self.database = database
        self.objects = ObjectStore(database: database)
        self.now = now
    }

    public init(database: AppDatabase, now: Now) {
        self.database = database; self.objects = ObjectStore(database: database); self.now = now
    }


    // MARK: Events

    /// What a batch of events did to today's figures, for the goal notification.
    public struct Observed: Sendable {
        public var day: String
        public var count = WordsWritten.Count()
        /// Today's goal was reached by this batch (and had not been announced yet).
        public var goalReached: Int?
    }

    /// Takes in a batch of document events of one project: counts the words written, remembers
    /// each document's version, keeps a snapshot every `history.interval_minutes` while edited.
    /// - Parameter goal: today's goal, to announce once when reached (nil: none).
    @discardableResult
    public func observe(project: PathBytes, events: [HistoryEvent], progress: ProgressSettings,
                        history: HistorySettings, goal: Int? = nil) throws -> Observed {
        let date = now.date()
        let day = ProgressCalendar.day(of: date, dayStarts: progress.dayStarts)
        let stamp = RFC3339.string(date)
        var observed = Observed(day: day)
        // Renames first: the document's row moves with everything recorded of it (done once: the
        // index usually moved it already), so the rest of the batch sees the new path only.
        try database.renameDocuments(project: project, events.compactMap { e in
            if case .moved(let from, let to, _) = e { return (from: from, to: to) } else { return nil }
        })
        // The previous version of every saved document (from the object store).
        struct Save { var path: PathBytes; var bytes: [UInt8]; var sha: String; var previous: String?; var known: Bool; var created: Bool; var lastSha: String? }
        var saves: [Save] = []
        // The last-seen version of each document of the batch, and its row's id (looked up once: a
        // first scan brings thousands of documents).
        var lastSeen: [PathBytes: String] = [:]
        var ids: [PathBytes: Int64] = [:]
        try database.read { db in
            guard let projectID = try DocumentIdentity.projectID(db, project) else { return }
            let statement = try db.cachedStatement(sql: """
                SELECT d.id, t.sha256 FROM document d LEFT JOIN history_document t ON t.document_id = d.id
                WHERE d.project_id = ? AND d.path = ?
                """)
            for event in events {
                let p: PathBytes
                switch event {
                case .saved(let path, _, _), .removed(let path), .moved(_, let path, _): p = path
                }
                if ids[p] == nil, let row = try Row.fetchOne(statement, arguments: [projectID, Data(p.bytes)]) {
                    ids[p] = row[0]
                    if let sha: String = row[1] { lastSeen[p] = sha }
                }
            }
        }
        /// The id of a document of the batch (its row is added when it has none).
        func idOf(_ db: Database, _ projectID: Int64, _ path: PathBytes) throws -> Int64 {
            if let id = ids[path] { return id }
            let id = try DocumentIdentity.ensure(db, projectID: projectID, path: path)
            ids[path] = id
            return id
        }
        for event in events {
            switch event {
            case .saved(let path, let bytes, _), .moved(_, let path, let bytes):
                let sha = SHA256Digest.hex(bytes)
                let last = lastSeen[path]
                if last == sha { continue }
                var previous: String?
                if let last, let old = try? objects.get(last) { previous = String(decoding: old, as: UTF8.self) }
                var created = false
                if case .saved(_, _, let c) = event { created = c }
                saves.append(Save(path: path, bytes: bytes, sha: sha, previous: previous, known: last != nil, created: created, lastSha: last))
            case .removed:
                // The history stays (a restore can bring the document back); nothing was written.
                continue
            }
        }
        guard !saves.isEmpty else { return observed }
        // Phase 1: paragraphs leaving documents in this batch may arrive in another one of it.
        var counted: [(Save, WordsWritten.Outcome)] = []
        var leaving: [String: [(path: PathBytes, words: Int)]] = [:]
        for s in saves where s.known {
            let pre = WordsWritten.count(previous: s.previous, new: String(decoding: s.bytes, as: UTF8.self), importWords: Int.max)
            for p in pre.removed { leaving[p.key, default: []].append((s.path, p.words)) }
        }
        let pooled = try database.read { db in
            try ProgressParagraphRecord.Pooled.fetchAll(
                db, sql: "SELECT t.key, d.path FROM \(Self.paragraphs) WHERE p.path = ? AND t.kind = 'removed' AND t.day = ?",
                arguments: [Data(project.bytes), day]).map { (key: $0.key, path: PathBytes(Array($0.path))) }
        }
        for s in saves {
            var movedIn: [String: Int] = [:]
            for (k, list) in leaving { movedIn[k, default: 0] += list.filter { $0.path != s.path }.count }
            for p in pooled where p.path != s.path { movedIn[p.key, default: 0] += 1 }
            // A document seen for the first time is writing only when its file was created since
            // history first saw the project (not on a first scan, nor after an upgrade).
            let outcome: WordsWritten.Outcome
            if !s.known && !s.created {
                outcome = WordsWritten.Outcome()
            } else {
                outcome = WordsWritten.count(previous: s.previous, new: String(decoding: s.bytes, as: UTF8.self), movedIn: movedIn, importWords: max(0, progress.importWords))
            }
            for p in outcome.movedIn {
                // Consume one matching departure: from this batch first, else from the pool.
                if var list = leaving[p.key], let i = list.firstIndex(where: { $0.path != s.path }) {
                    list.remove(at: i)
                    leaving[p.key] = list
                }
            }
            counted.append((s, outcome))
        }
        try database.write { db in
            let projectID = try DocumentIdentity.ensureProject(db, project, now: date)
            for (s, outcome) in counted {
                let documentID = try idOf(db, projectID, s.path)
                var count = outcome.count
                // Moves in from other documents: the departures leave the pool; their words were
                // counted as deleted over there, which a move is not.
                for p in outcome.movedIn {
                    // From a document of this batch: that document's own count leaves it out below.
                    if counted.contains(where: { $0.0.path != s.path && $0.1.removed.contains(p) }) { continue }
                    if let row = try ProgressParagraphRecord.Match.fetchOne(db, sql: """
                        SELECT t.id, t.document_id FROM \(Self.paragraphs) WHERE d.project_id = ? AND t.kind = 'removed'
                        AND t.key = ? AND t.day = ? AND t.document_id != ? ORDER BY t.id LIMIT 1
                        """, arguments: [projectID, p.key, day, documentID]) {
                        try db.execute(sql: "DELETE FROM progress_paragraph WHERE id = ?", arguments: [row.id])
                        try insertEvent(db, row.documentId, day, stamp, WordsWritten.Count(deleted: -p.words))
                    }
                }
                // Departures that match a paragraph written whole into another document today: a
                // move done paste-first; the words written there are taken back.
                var stillLeaving: [WordsWritten.Paragraph] = []
                for p in outcome.removed {
                    let movedAway = counted.contains { $0.0.path != s.path && $0.1.movedIn.contains(p) }
                    if movedAway {
                        count.deleted -= p.words
                        continue
                    }
                    if let row = try ProgressParagraphRecord.WordsMatch.fetchOne(db, sql: """
                        SELECT t.id, t.document_id, t.words FROM \(Self.paragraphs) WHERE d.project_id = ? AND t.kind = 'added'
                        AND t.key = ? AND t.day = ? AND t.document_id != ? ORDER BY t.id LIMIT 1
                        """, arguments: [projectID, p.key, day, documentID]) {
                        try db.execute(sql: "DELETE FROM progress_paragraph WHERE id = ?", arguments: [row.id])
                        try insertEvent(db, row.documentId, day, stamp, WordsWritten.Count(written: -row.words))
                        count.deleted -= p.words
                    } else {
                        stillLeaving.append(p)
                    }
                }
                for p in stillLeaving {
                    try db.execute(sql: "INSERT INTO progress_paragraph(document_id, kind, key, words, day) VALUES (?, 'removed', ?, ?, ?)",
                                   arguments: [documentID, p.key, p.words, day])
                }
                let addedStatement = try db.cachedStatement(
                    sql: "INSERT INTO progress_paragraph(document_id, kind, key, words, day) VALUES (?, 'added', ?, ?, ?)")
                for p in outcome.added { try addedStatement.execute(arguments: [documentID, p.key, p.words, day]) }
                count.deleted = max(0, count.deleted)
                if !count.isZero { try insertEvent(db, documentID, day, stamp, count) }
                observed.count = observed.count + count
            }
            // The pool is for today only.
            try db.execute(sql: "DELETE FROM progress_paragraph WHERE day != ? AND document_id IN (SELECT id FROM document WHERE project_id = ?)",
                           arguments: [day, projectID])
        }
        // Versions: the last seen one of each document, and a snapshot every interval. One
        // transaction for the batch (a project's first scan brings thousands of documents).
        struct Kept { var save: Save; var reason: String; var words: Int; var added: Int; var removed: Int }
        var kept: [Kept] = []
        var wordsByPath: [PathBytes: Int] = [:]
        // Compressing and counting are the CPU of a first scan's batch: spread over the cores (the
        // indexer's writer runs this while its loader parses the next batch; they share them).
        let prepared = ResultSlots<Result<(ObjectStore.Packed, Int), Compression.Failure>>(count: counted.count)
        let inputs = counted.map { (bytes: $0.0.bytes, sha: $0.0.sha) }
        let lanes = max(1, min(inputs.count / 16, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in stride(from: lane, to: inputs.count, by: lanes) {
                let s = inputs[i]
                prepared.set(i, Result { () throws(Compression.Failure) in
                    (try ObjectStore.pack(s.bytes, sha: s.sha), WordsWritten.wordCount(bytes: s.bytes))
                })
            }
        }
        var packed: [ObjectStore.Packed] = []
        for ((s, _), result) in zip(counted, prepared.values()) {
            let (pack, words) = try result.get()
            packed.append(pack)
            wordsByPath[s.path] = words
            let latest = s.known ? try latestSnapshot(project: project, path: s.path) : nil
            if let latest {
                let due = RFC3339.date(latest.time).map { date.timeIntervalSince($0) >= history.intervalMinutes * 60 } ?? true
                guard due, latest.sha256 != s.sha else { continue }
                var added = words, removed = 0
                if let old = try? objects.get(latest.sha256) {
                    (added, removed) = Self.wordChanges(old: String(decoding: old, as: UTF8.self), new: String(decoding: s.bytes, as: UTF8.self))
                }
                kept.append(Kept(save: s, reason: "edit", words: words, added: added, removed: removed))
            } else {
                kept.append(Kept(save: s, reason: s.known ? "edit" : "first", words: words, added: words, removed: 0))
            }
        }
        let replaced = try database.write { db -> [String] in
            var replaced: [String] = []
            for p in packed { try ObjectStore.put(db, p) }
            let projectID = try DocumentIdentity.ensureProject(db, project, now: date)
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO history_document(document_id, sha256, words, seen_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(document_id) DO UPDATE SET sha256 = excluded.sha256, words = excluded.words, seen_at = excluded.seen_at
                """)
            for (s, _) in counted {
                if let old = s.lastSha, old != s.sha { replaced.append(old) }
                try upsert.execute(arguments: [try idOf(db, projectID, s.path), s.sha,
                                               wordsByPath[s.path] ?? 0, stamp])
            }
            let insert = try db.cachedStatement(sql: """
                INSERT INTO history_snapshot(document_id, sha256, size, time, reason, note, words, added, removed)
                VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
                """)
            for k in kept {
                try insert.execute(arguments: [try idOf(db, projectID, k.save.path), k.save.sha, k.save.bytes.count, stamp, k.reason, k.words,
                                               k.added, k.removed])
            }
            return replaced
        }
        for k in kept where k.reason == "edit" { try prune(project: project, path: k.save.path, keep: history.keep) }
        for sha in Set(replaced) { collect(sha) }
        if let goal, goal > 0 {
            let today = try days(project: project, from: day, to: day)[day] ?? WordsWritten.Count()
            if today.written >= goal {
                let fresh = try database.write { db -> Bool in
                    // INSERT OR IGNORE: a row is added only when the day's notice is new.
                    try ProgressGoalNoticeRecord(projectId: try DocumentIdentity.ensureProject(db, project, now: date), day: day)
                        .insert(db, onConflict: .ignore)
                    return db.changesCount > 0
                }
                if fresh { observed.goalReached = today.written }
            }
        }
        return observed
    }

    func insertEvent(_ db: Database, _ documentID: Int64, _ day: String, _ time: String, _ c: WordsWritten.Count) throws {
        try db.cachedStatement(sql: "INSERT INTO progress_event(document_id, day, time, written, imported, deleted) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [documentID, day, time, c.written, c.imported, c.deleted])
    }

    /// The tables history reads, joined to their document (`d`) and project (`p`) as `t`.
    static let lastSeenJoined = DocumentIdentity.joined("history_document")
    static let snapshots = DocumentIdentity.joined("history_snapshot")
    static let events = DocumentIdentity.joined("progress_event")
    static let paragraphs = DocumentIdentity.joined("progress_paragraph")

    /// When history first saw a project (now, on the first call).
    public func projectFirstSeen(_ project: PathBytes) throws -> Date {
        try database.write { db in
            let projectID = try DocumentIdentity.ensureProject(db, project)
            try HistoryProjectRecord(projectId: projectID, seenAt: RFC3339.string(Date())).insert(db, onConflict: .ignore)
            let s = try String.fetchOne(db, sql: "SELECT seen_at FROM history_project WHERE project_id = ?", arguments: [projectID])
            return s.flatMap(RFC3339.date) ?? Date()
        }
    }

    /// Records bytes as the document's last-seen version without counting them as writing (a
    /// restore writes an old version back: not new words).
    public func markSeen(project: PathBytes, path: PathBytes, bytes: [UInt8]) throws {
        let sha = try objects.put(bytes)
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO history_document(document_id, sha256, words, seen_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(document_id) DO UPDATE SET sha256 = excluded.sha256, words = excluded.words, seen_at = excluded.seen_at
                """, arguments: [try DocumentIdentity.ensure(db, project: project, path: path), sha, WordsWritten.wordCount(bytes: bytes),
                                 RFC3339.string(now.date())])
        }
    }

    // MARK: Snapshots

    /// Keeps a version of a document (no new row when the newest one has the same bytes and reason).
    /// - Returns: the snapshot kept (or the identical newest one).
    @discardableResult
    public func snapshot(project: PathBytes, path: PathBytes, bytes: [UInt8], reason: String, note: String? = nil,
                         history: HistorySettings? = nil) throws -> SnapshotRecord {
        let sha = try objects.put(bytes)
        let latest = try latestSnapshot(project: project, path: path)
        if var latest, latest.sha256 == sha, latest.reason == reason, note == nil {
            latest.number = try number(of: latest.rev, project: project, path: path)
            return latest
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var added = 0, removed = 0
        if let latest, let old = try? objects.get(latest.sha256) {
            (added, removed) = Self.wordChanges(old: String(decoding: old, as: UTF8.self), new: text)
        } else {
            added = WordsWritten.wordCount(text)
        }
        let time = RFC3339.string(now.date())
        let words = WordsWritten.wordCount(text)
        let id = try database.write { db -> Int64 in
            var kept = HistorySnapshotRecord(id: nil, documentId: try DocumentIdentity.ensure(db, project: project, path: path),
                                             path: nil, sha256: sha, size: bytes.count, time: time, reason: reason, note: note,
                                             words: words, added: added, removed: removed)
            try kept.insert(db)
            return db.lastInsertedRowID
        }
        if let history { try prune(project: project, path: path, keep: history.keep) }
        let number = try number(of: id, project: project, path: path)
        return SnapshotRecord(rev: id, path: path.display, sha256: sha, time: time, reason: reason, note: note, words: words,
                              added: added, removed: removed, number: number)
    }

    /// Words inserted and deleted between two texts (a plain word diff: moves count both ways).
    public static func wordChanges(old: String, new: String) -> (added: Int, removed: Int) {
        let a = WordsWritten.words(old).map(WordsWritten.comparable), b = WordsWritten.words(new).map(WordsWritten.comparable)
        var added = 0, removed = 0
        for op in SequenceDiff.diff(a, b) {
            switch op {
            case .insert: added += 1
            case .delete: removed += 1
            case .equal: break
            }
        }
        return (added, removed)
    }

    /// The number of the version with row id `rev` among its document's versions (1 for the oldest).
    func number(of rev: Int64, project: PathBytes, path: PathBytes) throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM \(Self.snapshots) WHERE p.path = ? AND d.path = ? AND t.id <= ?"),
                arguments: [Data(project.bytes), Data(path.bytes), rev])
        } ?? 0
    }

    /// A document's versions, newest first, numbered from 1 (the oldest kept).
    public func list(project: PathBytes, path: PathBytes) throws -> [SnapshotRecord] {
        var all = try database.read { db in
            try HistorySnapshotRecord.fetchAll(
                db.cachedStatement(sql: "SELECT t.*, d.path FROM \(Self.snapshots) WHERE p.path = ? AND d.path = ? ORDER BY t.id DESC"),
                arguments: [Data(project.bytes), Data(path.bytes)]).map(\.snapshot)
        }
        for i in all.indices { all[i].number = all.count - i }
        return all
    }

    public func latestSnapshot(project: PathBytes, path: PathBytes, reason: String? = nil) throws -> SnapshotRecord? {
        try database.read { db in
            try HistorySnapshotRecord.fetchOne(db.cachedStatement(sql: """
                SELECT t.*, d.path FROM \(Self.snapshots) WHERE p.path = ? AND d.path = ? AND (? IS NULL OR t.reason = ?)
                ORDER BY t.id DESC LIMIT 1
                """), arguments: [Data(project.bytes), Data(path.bytes), reason, reason])?.snapshot
        }
    }

    /// One version by its rev (of this document).
    public func snapshot(project: PathBytes, path: PathBytes, rev: Int64) throws -> SnapshotRecord? {
        try database.read { db in
            try HistorySnapshotRecord.fetchOne(
                db.cachedStatement(sql: "SELECT t.*, d.path FROM \(Self.snapshots) WHERE p.path = ? AND d.path = ? AND t.id = ?"),
                arguments: [Data(project.bytes), Data(path.bytes), rev])?.snapshot
        }
    }

    public func content(_ s: SnapshotRecord) throws -> [UInt8] { try objects.get(s.sha256) }

    /// Applies `history.keep`: every snapshot of the last `all_days` days, then the newest of each
    /// day for `daily_days` more days, then the newest of each week. The newest snapshot and the
    /// newest review snapshot are always kept (the next changed-scope round compares with it).
    public func prune(project: PathBytes, path: PathBytes, keep: HistorySettings.Keep) throws {
        let all = try list(project: project, path: path)
        guard all.count > 1 else { return }
        let nowDate = now.date()
        let lastReview = all.first { $0.reason == "review" }?.rev
        var seenBuckets = Set<String>()
        var drop: [SnapshotRecord] = []
        for (i, s) in all.enumerated() {
            if i == 0 || s.rev == lastReview { continue }
            guard let t = RFC3339.date(s.time) else { continue }
            let ageDays = nowDate.timeIntervalSince(t) / 86_400
            if ageDays < Double(max(0, keep.allDays)) { continue }
            let dayIndex = Int((t.timeIntervalSince1970 / 86_400).rounded(.down))
            let bucket = ageDays < Double(max(0, keep.allDays) + max(0, keep.dailyDays)) ? "d\(dayIndex)" : "w\(dayIndex / 7)"
            // Newest first: the first snapshot met in a bucket is the one kept.
            if !seenBuckets.insert(bucket).inserted { drop.append(s) }
        }
        guard !drop.isEmpty else { return }
        try database.write { db in
            for s in drop { try db.execute(sql: "DELETE FROM history_snapshot WHERE id = ?", arguments: [s.rev]) }
        }
        for sha in Set(drop.map(\.sha256)) { collect(sha) }
    }

    /// Removes an object no snapshot and no last-seen version refers to any more.
    func collect(_ sha: String) {
        let used = (try? database.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS(SELECT 1 FROM history_snapshot WHERE sha256 = ?) OR EXISTS(SELECT 1 FROM history_document WHERE sha256 = ?)
                """, arguments: [sha, sha])
        }) ?? true
        if used == false { objects.remove(sha) }
    }

    // MARK: Figures

    /// Fills the days that have no figures from the versions kept: each version against the one
    /// before it of the same document counts for the day of the later one (coarser than every
    /// save: a move between documents between two versions is not recognised).
    /// - Returns: the days filled.
    @discardableResult
    public func rebuildProgress(project: PathBytes, settings: ProgressSettings) throws -> [String] {
        let projectKey = Data(project.bytes)
        let (counted, rows) = try database.read { db in
            (Set(try String.fetchAll(db, sql: "SELECT DISTINCT t.day FROM \(Self.events) WHERE p.path = ?", arguments: [projectKey])),
             try HistorySnapshotRecord.fetchAll(db, sql: "SELECT t.*, d.path FROM \(Self.snapshots) WHERE p.path = ? ORDER BY d.path, t.id",
                                                arguments: [projectKey]))
        }
        var filled: [String: [(Int64, WordsWritten.Count)]] = [:]
        var previous: SnapshotRecord?
        for row in rows {
            let s = row.snapshot
            defer { previous = s }
            guard let p = previous, p.path == s.path, p.sha256 != s.sha256, let t = RFC3339.date(s.time) else { continue }
            let day = ProgressCalendar.day(of: t, dayStarts: settings.dayStarts)
            guard !counted.contains(day), let old = try? objects.get(p.sha256), let new = try? objects.get(s.sha256) else { continue }
            // A "restore" version is the one a restore replaced; what follows it holds the old text
            // written back, which is not writing.
            if p.reason == "restore" { continue }
            let outcome = WordsWritten.count(previous: String(decoding: old, as: UTF8.self), new: String(decoding: new, as: UTF8.self),
                                             importWords: max(0, settings.importWords))
            if !outcome.count.isZero { filled[day, default: []].append((row.documentId, outcome.count)) }
        }
        try database.write { db in
            for (day, list) in filled {
                for (documentID, c) in list {
                    try insertEvent(db, documentID, day, "\(day)T00:00:00Z", c)
                }
            }
        }
        return filled.keys.sorted()
    }

    /// Words written, imported and deleted per day (`YYYY-MM-DD`), for one project or all (nil).
    public func days(project: PathBytes?, from: String, to: String) throws -> [String: WordsWritten.Count] {
        try database.read { db in
            var out: [String: WordsWritten.Count] = [:]
            let rows = try ProgressDayTotals.fetchAll(db, sql: """
                SELECT t.day, SUM(t.written) AS w, SUM(t.imported) AS i, SUM(t.deleted) AS d FROM \(Self.events)
                WHERE (? IS NULL OR p.path = ?) AND t.day >= ? AND t.day <= ? GROUP BY t.day
                """, arguments: [project.map { Data($0.bytes) }, project.map { Data($0.bytes) }, from, to])
            for r in rows { out[r.day] = r.count }
            return out
        }
    }

    /// Words written per document on one day.
    public func documents(project: PathBytes, day: String) throws -> [(path: String, count: WordsWritten.Count)] {
        try database.read { db in
            try ProgressPathTotals.fetchAll(db, sql: """
                SELECT d.path, SUM(t.written) AS w, SUM(t.imported) AS i, SUM(t.deleted) AS d FROM \(Self.events)
                WHERE p.path = ? AND t.day = ? GROUP BY t.document_id ORDER BY w DESC, d.path
                """, arguments: [Data(project.bytes), day]).map { r in (path: PathBytes(Array(r.path)).display, count: r.count) }
        }
    }

    /// The projects with figures.
    public func projects() throws -> [PathBytes] {
        try database.read { db in
            try Data.fetchAll(db, sql: "SELECT DISTINCT p.path FROM \(Self.lastSeenJoined) ORDER BY p.path").map { PathBytes(Array($0)) }
        }
    }

    /// The words of a project's documents as last seen.
    public func projectWords(project: PathBytes) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(t.words), 0) FROM \(Self.lastSeenJoined) WHERE p.path = ?",
                             arguments: [Data(project.bytes)]) ?? 0
        }
    }

    /// Every day with figures, earliest first (for the streak).
    public func writtenByDay(project: PathBytes?) throws -> [String: Int] {
        try database.read { db in
            var out: [String: Int] = [:]
            for r in try ProgressDayWritten.fetchAll(db, sql: """
                SELECT t.day, SUM(t.written) AS w FROM \(Self.events) WHERE (? IS NULL OR p.path = ?) GROUP BY t.day
                """, arguments: [project.map { Data($0.bytes) }, project.map { Data($0.bytes) }]) {
                out[r.day] = max(0, r.w)
            }
            return out
        }
    }

    /// Keeps a snapshot when a document's journey stage changed since it was last seen here.
    /// - Returns: whether it did.
    @discardableResult
    public func stageSeen(project: PathBytes, path: PathBytes, stage: String, bytes: [UInt8], history: HistorySettings) throws -> Bool {
        let args: StatementArguments = [Data(project.bytes), Data(path.bytes)]
        let row = try database.read { db in
            try HistoryDocumentRecord.Stage.fetchOne(
                db.cachedStatement(sql: "SELECT t.stage FROM \(Self.lastSeenJoined) WHERE p.path = ? AND d.path = ?"),
                arguments: args)
        }
        guard let row else { return false }
        let old = row.stage
        if old == stage { return false }
        try database.write { db in
            guard let id = try DocumentIdentity.find(db, project: project, path: path) else { return }
            try db.execute(sql: "UPDATE history_document SET stage = ? WHERE document_id = ?", arguments: [stage, id])
        }
        guard old != nil else { return false }
        // Writing moves a new document from canvas to draft by itself: that version is a save.
        let reason = old == "canvas" && stage == "draft" ? "edit" : "stage"
        try snapshot(project: project, path: path, bytes: bytes, reason: reason, history: history)
        return true
    }

    /// The journey stages the database holds for a project's documents (`journey_state`).
    public func journeyStages(project: PathBytes, paths: [PathBytes]) -> [PathBytes: String] {
        var out: [PathBytes: String] = [:]
        try? database.read { db in
            for p in paths {
                if let s = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT t.stage FROM \(DocumentStateStore.joined) WHERE p.path = ? AND d.path = ?"),
                    arguments: [Data(project.bytes), Data(p.bytes)]) { out[p] = s }
            }
        }
        return out
    }

    // MARK: Review scope

    public func setRoundScope(_ roundID: String, _ scope: String) throws {
        try database.write { db in
            try ReviewRoundScopeRecord(roundId: roundID, scope: scope).insert(db, onConflict: .replace)
        }
    }

    public func roundScope(_ roundID: String) -> String? {
        try? database.read { db in
            try String.fetchOne(db, sql: "SELECT scope FROM review_round_scope WHERE round_id = ?", arguments: [roundID])
        }
    }
}
