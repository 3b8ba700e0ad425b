import Foundation

/// Builds `tk-agent status`: the running agent's live snapshot, or index facts when it is not running.
public enum StatusReporter {
    /// The live snapshot written by a running agent, with uptime brought up to date.
    public static func live(paths: Paths, now: Date = Date()) -> StatusSnapshot? {
        guard let pid = AgentLock.runningPID(paths: paths) else { return nil }
        // A status file another agent wrote (the one before this, which stopped) says nothing of
        // this one: until it writes its own, the agent is starting. That includes the moment
        // between taking the lock and writing its pid into it (pid -1): then no file can be told
        // to be this agent's, and a killed agent's last "nothing queued" must not be taken for it.
        guard pid > 0,
              let bytes = try? FileSystem.read(paths.statusFile, limit: 8 << 20),
              var snap = try? JSON.decode(StatusSnapshot.self, from: bytes),
              snap.pid == pid
        else {
            return StatusSnapshot(running: true, pid: pid > 0 ? pid : nil, uptimeS: nil, startedAt: nil, updatedAt: nil,
                                  projects: [], index: .init(documents: 0, pending: 1),
                                  problems: ["the agent is starting (no status yet)"])
        }
        snap.running = true
        if let started = snap.startedAt.flatMap(RFC3339.date) { snap.uptimeS = max(0, Int(now.timeIntervalSince(started))) }
        return snap
    }

    /// Index facts from the database and configuration when no agent runs.
    public static func offline(paths: Paths, loaded: LoadedConfiguration, database: AppDatabase?) -> StatusSnapshot {
        var problems = loaded.problems
        var perProject: [PathBytes: Int] = [:]
        var total = 0
        let journeys = (try? database?.journeySummary()) ?? [:]
        if let database {
            do {
                let c = try database.counts()
                perProject = c.perProject
                total = c.documents
            } catch { problems.append("database: \(error)") }
        }
        var roots = ProjectRegistry.configured(loaded.config)
        for r in perProject.keys.sorted() where !roots.contains(r) { roots.append(r) }
        let ids = Dictionary(((try? database?.projects()) ?? []).map { ($0.root, $0.id) }, uniquingKeysWith: { a, _ in a })
        let configurations = ConfigurationStore(paths: paths)
        let projects = roots.map { r -> StatusSnapshot.Project in
            var pp: [String] = []
            if FileSystem.lstatIfExists(r)?.kind != .directory { pp.append("folder missing") }
            // What the agent would say: the project's config problems and its documents' (kept in the index).
            pp += configurations.load(project: r).problems.filter { !problems.contains($0) }
            if let id = ids[r], let stored = try? database?.documentProblems(projectID: id) {
                pp += stored.sorted { $0.0 < $1.0 }.map(\.1)
            }
            return .init(path: r.display, documents: perProject[r] ?? 0, watching: false, problems: pp, journey: journeys[r])
        }
        var snap = StatusSnapshot(running: false, pid: nil, uptimeS: nil, startedAt: nil, updatedAt: nil,
                                  projects: projects, index: .init(documents: total, pending: 0), problems: problems)
        snap.usage.budgetUsd = loaded.config.review.dailyBudgetUsd
        if let database {
            ReviewQueue.contribute(store: ReviewStore(database: database), ledger: UsageLedger(database: database),
                                   config: loaded.config, now: Date(), to: &snap)
        }
        return snap
    }
}
