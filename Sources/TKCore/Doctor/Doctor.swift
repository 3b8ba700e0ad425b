import Foundation
import GRDB
import Logging

/// `tk-agent doctor`: checks what the agent needs from the machine and says, in one line each,
/// what is wrong and how to fix it.
public struct DoctorCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case ok, warn, fail }
    /// `inotify`, `notifications`, `data`, `project`, `provider`, `systemd`, `config`.
    public var area: String
    public var status: Status
    public var message: String
    /// What to do about it (nil when all is well).
    public var fix: String?
    public init(_ area: String, _ status: Status, _ message: String, fix: String? = nil) {
        self.area = area; self.status = status; self.message = message; self.fix = fix
    }
}

public struct DoctorReport: Codable, Sendable, Equatable {
    public var ok: Bool
    public var checks: [DoctorCheck]
    public init(checks: [DoctorCheck]) {
        self.checks = checks
        ok = !checks.contains { $0.status == .fail }
    }

    /// One line per check: `ok   area: message — fix`.
    public func text() -> String {
        checks.map { c in
            let tag = c.status == .ok ? "ok  " : c.status == .warn ? "warn" : "FAIL"
            return "\(tag) \(c.area): \(c.message)" + (c.fix.map { " — \($0)" } ?? "")
        }.joined(separator: "\n")
    }
}

public enum Doctor {
    /// Runs every check.
    /// - Parameter procSys: where the kernel's settings are read (tests pass a stand-in folder).
    public static func run(paths: Paths, environment env: [String: String], logger: Logger,
                           transport: any HTTPTransport = CurlTransport(), procSys: String = "/proc/sys") async -> DoctorReport {
        let loaded = ConfigurationStore(paths: paths, environment: env).user()
        var checks: [DoctorCheck] = loaded.problems.map { DoctorCheck("config", .fail, $0, fix: "correct the config file") }
        let live = StatusReporter.live(paths: paths)
        let roots = ProjectRegistry.configured(loaded.config)
            + (live?.projects.map { FileSystem.absolute($0.path) } ?? [])
        var seen = Set<PathBytes>()
        let projects = roots.filter { seen.insert($0).inserted }
        checks += inotify(projects: projects, config: loaded.config, procSys: procSys)
        checks += notifications(loaded.config.notifications, environment: env)
        checks += data(paths: paths)
        checks += projectChecks(projects, live: live)
        checks += valeChecks(projects + [FileSystem.absolute(FileManager.default.currentDirectoryPath)])
        checks += await provider(configuration: loaded.config, environment: env, paths: paths, logger: logger,
                                 transport: transport)
        checks.append(systemd(environment: env))
        return DoctorReport(checks: checks)
    }

    // MARK: inotify

    static func readNumber(_ path: String) -> Int? {
        guard let bytes = try? FileSystem.read(FileSystem.absolute(path), limit: 64),
              let s = String(validating: bytes, as: UTF8.self) else { return nil }
        return Int(s.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The folders the watcher would watch in one project (one inotify watch each), up to `cap`.
    public static func folderCount(root: PathBytes, filter: PathFilter, cap: Int = 5_000_000) -> Int {
        var count = 0
        var stack: [PathBytes] = [root]
        while let dir = stack.popLast(), count < cap {
            count += 1
            guard let entries = try? DirectoryListing.entries(of: dir, followLink: dir == root) else { continue }
            for e in entries {
                var kind = e.kind
                if kind == nil { kind = FileSystem.lstatIfExists(dir.appending(e.name))?.kind }
                guard kind == .directory else { continue }
                let path = dir.appending(e.name)
                guard let rel = path.relative(to: root), filter.shouldDescend(child: rel) else { continue }
                stack.append(path)
            }
        }
        return count
    }

    static func inotify(projects: [PathBytes], config: Configuration, procSys base: String) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let folders = projects.reduce(0) { sum, root in
            let filter = PathFilter(ignore: config.watch.ignore)
            return sum + (DirectoryWalker.isFolderFollowingLinks(root) ? folderCount(root: root, filter: filter) : 0)
        }
        if let watches = readNumber(base + "/fs/inotify/max_user_watches") {
            // Other programs (editors, sync tools) watch folders too: ask for room to spare.
            let wanted = max(8192, folders * 2)
            let fix = "sudo sysctl fs.inotify.max_user_watches=\(max(524288, wanted)), and add that line to /etc/sysctl.d/90-tk-agent.conf to keep it"
            if watches < folders {
                checks.append(.init("inotify", .fail, "max_user_watches is \(watches) but the projects have \(folders) folders; folders over the limit are not watched (only rescanned)", fix: fix))
            } else if watches < wanted {
                checks.append(.init("inotify", .warn, "max_user_watches is \(watches) for \(folders) folders; other programs share the limit", fix: fix))
            } else {
                checks.append(.init("inotify", .ok, "max_user_watches is \(watches) for \(folders) folders"))
            }
        } else {
            checks.append(.init("inotify", .warn, "cannot read \(base)/fs/inotify/max_user_watches", fix: "check that /proc is mounted"))
        }
        if let instances = readNumber(base + "/fs/inotify/max_user_instances") {
            if instances < 4 {
                checks.append(.init("inotify", .fail, "max_user_instances is \(instances); the agent and your editors each need one",
                                    fix: "sudo sysctl fs.inotify.max_user_instances=128"))
            } else {
                checks.append(.init("inotify", .ok, "max_user_instances is \(instances)"))
            }
        }
        return checks
    }

    // MARK: notifications

    static func notifications(_ n: Configuration.Notifications, environment env: [String: String]) -> [DoctorCheck] {
        guard n.enabled else { return [.init("notifications", .ok, "off (notifications.enabled is false)")] }
        let program = n.command.split(separator: " ").first.map(String.init) ?? ""
        guard !program.isEmpty else {
            return [.init("notifications", .fail, "notifications.command is empty", fix: "`tk-agent config set notifications.command notify-send`")]
        }
        var checks: [DoctorCheck] = []
        let found = findExecutable(program, path: env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        if found == nil {
            let fix = Notifier.isNotifySend(n.command) ? "install it (`sudo apt install libnotify-bin`)" : "check notifications.command"
            checks.append(.init("notifications", .fail, "\(program) is not found", fix: fix))
        }
        if Notifier.isNotifySend(n.command) {
            if let bus = Notifier.sessionBus(environment: env) {
                checks.append(.init("notifications", .ok, "notify-send with the session bus at \(bus)"))
            } else {
                checks.append(.init("notifications", .warn, "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): notify-send cannot show anything",
                                    fix: "run the agent inside your desktop session (systemd --user), or set notifications.command to your own script (it runs without a bus)"))
            }
        } else if found != nil {
            checks.append(.init("notifications", .ok, "\(program) runs without a session bus; it gets TK_TITLE, TK_BODY, TK_DOCUMENT"))
        }
        return checks
    }

    static func findExecutable(_ program: String, path: String) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    // MARK: data folder

    static func data(paths: Paths) -> [DoctorCheck] {
        let dir = paths.dataDirectory
        var checks: [DoctorCheck] = []
        guard let st = TreeWatcher.statFollowing(dir) else {
            return [.init("data", .ok, "\(dir.display) does not exist yet; the agent creates it")]
        }
        guard st.kind == .directory else {
            return [.init("data", .fail, "\(dir.display) is not a folder", fix: "move it away or set TK_DATA_DIR")]
        }
        let probe = dir.appending(".doctor-\(getpid())")
        let fd = probe.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        if fd < 0 {
            let reason = String(cString: strerror(errno))
            checks.append(.init("data", .fail, "\(dir.display) is not writable (\(reason))", fix: "`chmod u+w \(dir.display)` or free the disk"))
        } else {
            close(fd)
            _ = probe.withCString { unlink($0) }
            checks.append(.init("data", .ok, "\(dir.display) is writable"))
        }
        var vfs = statvfs()
        if dir.withCString({ statvfs($0, &vfs) }) == 0 {
            let free = Int64(vfs.f_bavail) * Int64(vfs.f_frsize)
            let mb = free / 1_048_576
            if free < 10 << 20 {
                checks.append(.init("data", .fail, "\(mb) MB free on the data folder's disk", fix: "free some space; the agent catches up by itself"))
            } else if free < 200 << 20 {
                checks.append(.init("data", .warn, "\(mb) MB free on the data folder's disk", fix: "free some space"))
            } else {
                checks.append(.init("data", .ok, "\(mb) MB free"))
            }
        }
        if FileSystem.lstatIfExists(paths.database) != nil {
            checks.append(integrity(paths.database))
        } else {
            checks.append(.init("data", .ok, "no index yet; `tk-agent index` or the agent builds it"))
        }
        return checks
    }

    /// `PRAGMA integrity_check` on the index, read-only.
    public static func integrity(_ database: PathBytes) -> DoctorCheck {
        var config = GRDB.Configuration()
        config.readonly = true
        config.busyMode = .timeout(5)
        do {
            let queue = try DatabaseQueue(path: database.display, configuration: config)
            let rows = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            try? queue.close()
            if rows == ["ok"] { return .init("data", .ok, "index database integrity ok") }
            return .init("data", .fail, "index database is damaged: \(rows.prefix(3).joined(separator: "; "))",
                         fix: "stop the agent and delete \(database.display); it is rebuilt from your files and sidecars")
        } catch {
            return .init("data", .fail, "cannot read the index database: \(error)",
                         fix: "stop the agent and delete \(database.display); it is rebuilt from your files and sidecars")
        }
    }

    // MARK: projects

    /// The team's Vale styles each project (and the working folder) uses: styles found, rules loaded
    /// and skipped, problems in the ini or the rules.
    static func valeChecks(_ folders: [PathBytes]) -> [DoctorCheck] {
        var seen = Set<String>()
        var checks: [DoctorCheck] = []
        for folder in folders {
            guard let ini = ValeConfiguration.find(from: folder.display), seen.insert(ini).inserted,
                  let engine = ValeEngine.cached(path: ini, root: folder.display) else { continue }
            let styles = engine.styles
            let skipped = styles.skipped.isEmpty ? "" : "; skipped \(styles.skipped.count): "
                + styles.skipped.prefix(8).joined(separator: "; ") + (styles.skipped.count > 8 ? "; …" : "")
            checks.append(.init("vale", .ok, "\(ini): styles \(styles.styleNames.isEmpty ? "none" : styles.styleNames.joined(separator: ", ")); "
                + "\(styles.rules.count) rules loaded\(skipped)"))
            for p in engine.configuration.problems + styles.problems {
                checks.append(.init("vale", .warn, p, fix: "correct the rule or the .vale.ini"))
            }
        }
        return checks
    }

    static func projectChecks(_ projects: [PathBytes], live: StatusSnapshot?) -> [DoctorCheck] {
        if projects.isEmpty {
            return [.init("project", .warn, "no projects configured", fix: "`tk-agent watch add PATH`")]
        }
        return projects.map { root in
            guard let st = TreeWatcher.statFollowing(root) else {
                return .init("project", .fail, "\(root.display) does not exist", fix: "restore it, or `tk-agent watch remove \(root.display)`")
            }
            guard st.kind == .directory else {
                return .init("project", .fail, "\(root.display) is not a folder", fix: "`tk-agent watch remove \(root.display)`")
            }
            if (try? DirectoryListing.entries(of: root, followLink: true)) == nil {
                return .init("project", .fail, "\(root.display) cannot be read", fix: "`chmod u+rx \(root.display)`")
            }
            guard let live else {
                return .init("project", .warn, "\(root.display) is readable; the agent is not running, so it is not watched",
                             fix: "`tk-agent run` or `systemctl --user start tk-agent`")
            }
            guard let p = live.projects.first(where: { FileSystem.absolute($0.path) == root }) else {
                return .init("project", .warn, "\(root.display) is readable but the running agent does not watch it",
                             fix: "reload the agent (`systemctl --user reload tk-agent`)")
            }
            if !p.watching {
                let why = p.problems.first.map { ": \($0)" } ?? ""
                return .init("project", .fail, "\(root.display) is not watched\(why)", fix: "see `tk-agent status`")
            }
            return .init("project", .ok, "\(root.display) is watched (\(p.documents) documents)")
        }
    }

    // MARK: provider

    static func provider(configuration: Configuration, environment env: [String: String], paths: Paths, logger: Logger,
                         transport: any HTTPTransport) async -> [DoctorCheck] {
        let r = Resolver(configuration: configuration, environment: env, paths: paths, providerOverride: nil,
                         modelOverride: nil, logger: logger, transport: transport)
        let choice: ProviderChoice
        switch await r.resolve() {
        case .success(let c): choice = c
        case .failure(let e):
            return [.init("provider", .warn, e.message, fix: "reviews wait until one is set; quick checks work without")]
        }
        var checks: [DoctorCheck] = []
        let s = r.settings(choice.name)
        var base = s.baseUrl.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        if choice.name != "ollama" {
            checks.append(.init("provider", .ok, choice.key == nil ? "\(choice.name): no key needed (local server)" : "\(choice.name): API key present"))
        }
        var headers: [String: String] = [:]
        let url: String
        switch choice.name {
        case "anthropic":
            url = base + "/v1/models?limit=1000"
            if let k = choice.key { headers["x-api-key"] = k.value }
            headers["anthropic-version"] = "2023-06-01"
        case "openai":
            url = base + "/models"
            if let k = choice.key { headers["authorization"] = "Bearer \(k.value)" }
        default:
            url = base + "/api/tags"
            if let k = r.ollamaKey() { headers["authorization"] = "Bearer \(k.value)" }
        }
        var status = 0
        var body: [UInt8] = []
        do {
            for try await event in transport.events(for: HTTPRequest(url: url, method: "GET", headers: headers),
                                                    timeouts: HTTPTimeouts(firstByte: 5, idle: 5)) {
                switch event {
                case .head(let h): status = h.status
                case .bytes(let b): if body.count < 8 << 20 { body += b }
                }
            }
        } catch {
            checks.append(.init("provider", .fail, "\(choice.name) is not reachable at \(base): \(error)",
                                fix: "check the network or providers.\(choice.name).base_url"))
            return checks
        }
        if status == 401 || status == 403 {
            checks.append(.init("provider", .fail, "\(choice.name) refuses the API key (HTTP \(status))", fix: r.keyHint(choice.name)))
            return checks
        }
        guard status == 200 else {
            checks.append(.init("provider", .warn, "\(choice.name) at \(base) answered HTTP \(status) to the model list; cannot check the model",
                                fix: "check providers.\(choice.name).base_url"))
            return checks
        }
        let json = try? JSONValue.parse(body)
        let models: [String]
        if choice.name == "ollama" {
            models = (json?["models"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue ?? $0["model"]?.stringValue }
        } else {
            models = (json?["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        if models.isEmpty {
            checks.append(.init("provider", .ok, "\(choice.name) is reachable at \(base) (it lists no models; model \(choice.model) not checked)"))
        } else if models.contains(choice.model) || (choice.name == "ollama" && Resolver.listed(choice.model, in: models)) {
            checks.append(.init("provider", .ok, "\(choice.name) is reachable at \(base) and knows model \(choice.model)"))
        } else {
            let some = models.prefix(5).joined(separator: ", ")
            checks.append(.init("provider", .fail, "\(choice.name) does not know model \(choice.model) (it has \(some)\(models.count > 5 ? ", …" : ""))",
                                fix: "`tk-agent config set providers.\(choice.name).model NAME`"))
        }
        return checks
    }

    // MARK: systemd

    /// The unit file shipped beside the executable: `contrib/systemd/` of the source tree it was
    /// built in (a few folders above `.build/…/release/`), or `share/tk-agent/` of an install prefix.
    static func unitSource(executable: String? = nil) -> PathBytes? {
        let exe = executable ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        guard let exe, exe.hasPrefix("/") else { return nil }
        var dir = FileSystem.absolute(exe).parent
        for _ in 0..<5 {
            for candidate in ["contrib/systemd/tk-agent.service", "share/tk-agent/tk-agent.service"] {
                let p = dir.appending(candidate)
                if FileSystem.lstatIfExists(p)?.kind == .regular { return p }
            }
            let up = dir.parent
            if up == dir { break }
            dir = up
        }
        return nil
    }

    static func systemd(environment env: [String: String]) -> DoctorCheck {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let configHome = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let unit = FileSystem.absolute(configHome + "/systemd/user/tk-agent.service")
        let wants = FileSystem.absolute(configHome + "/systemd/user/default.target.wants/tk-agent.service")
        let enable = "systemctl --user daemon-reload && systemctl --user enable --now tk-agent"
        let install = unitSource().map { "install -Dm644 \($0.display) ~/.config/systemd/user/tk-agent.service && \(enable)" }
            ?? "copy contrib/systemd/tk-agent.service from the tk-agent sources to ~/.config/systemd/user/, then \(enable)"
        guard FileSystem.lstatIfExists(unit) != nil else {
            return .init("systemd", .warn, "the user unit is not installed (the agent does not start with your session)", fix: install)
        }
        guard FileSystem.lstatIfExists(wants) != nil else {
            return .init("systemd", .warn, "the user unit is installed but not enabled", fix: "systemctl --user enable --now tk-agent")
        }
        return .init("systemd", .ok, "the user unit is installed and enabled")
    }
}
