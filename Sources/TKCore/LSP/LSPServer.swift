import Foundation
import Synchronization

/// Where the server's messages go (stdout in `tk-agent lsp`, a closure in tests).
public final class LSPOutput: Sendable {
    private let sink: Mutex<@Sendable ([UInt8]) -> Void>

    public init(_ sink: @escaping @Sendable ([UInt8]) -> Void) { self.sink = Mutex(sink) }

    /// Writes framed messages to a file descriptor, whole.
    public static func fileDescriptor(_ fd: Int32) -> LSPOutput {
        LSPOutput { bytes in
            bytes.withUnsafeBytes { raw in
                var off = 0
                while off < raw.count {
                    let n = write(fd, raw.baseAddress! + off, raw.count - off)
                    if n < 0 { if errno == EINTR { continue }; return }
                    off += n
                }
            }
        }
    }

    public func send(_ message: JSONValue) {
        send(body: message.wireBytes)
    }

    /// Sends a message already encoded.
    func send(body: [UInt8]) {
        let framed = LSPFramer.frame(body)
        sink.withLock { $0(framed) }
    }
}

/// The ids of requests the client cancelled; marked by the reader as soon as the
/// `$/cancelRequest` arrives, before the request itself is handled.
public final class LSPCancellations: Sendable {
    private let ids = Mutex<Set<String>>([])
    public init() {}
    static func key(_ id: JSONValue) -> String { id.wireBytes.map { String($0) }.joined(separator: ",") }
    public func cancel(_ id: JSONValue) { _ = ids.withLock { $0.insert(Self.key(id)) } }
    /// Whether `id` was cancelled (and forgets it).
    public func take(_ id: JSONValue) -> Bool { ids.withLock { $0.remove(Self.key(id)) != nil } }
}

/// `tk-agent lsp`: the language server. Messages are handled one at a time, in order; linting
/// after the debounce and review rounds run in tasks that come back to the actor.
public actor LSPServer {
    public enum State: Sendable { case starting, running, shuttingDown }

    let output: LSPOutput
    let actions: LSPDocumentActions
    public let cancellations: LSPCancellations
    public private(set) var state: State = .starting
    var encoding: LSPPositionEncoding = .utf16
    var settings = LSPSettings()
    /// The client pulls diagnostics (`textDocument/diagnostic`); then nothing is pushed.
    var clientPulls = false
    var clientRefreshes = false
    var documents: [String: LSPOpenDocument] = [:]
    var nextOutgoingID = 1
    var watchTask: Task<Void, Never>?
    /// Called with the exit status when the client sends `exit`.
    let onExit: @Sendable (Int32) -> Void
    /// How often sidecars are looked at without an inotify event (folders created later, no inotify).
    let pollInterval: Duration
    let watcher = LSPSidecarWatcher()
    /// How long the buffer must rest before a Vale pass starts (after the keystroke's own lint).
    let valeDelay: Duration
    /// Runs a Vale pass, off the actor (tests hold it to see that keystrokes do not wait for it).
    let valeRunner: @Sendable (ValeJob) async -> [Finding]?

    public init(output: LSPOutput, actions: LSPDocumentActions, cancellations: LSPCancellations = LSPCancellations(),
                pollInterval: Duration = .milliseconds(500), onExit: @escaping @Sendable (Int32) -> Void) {
        self.init(output: output, actions: actions, cancellations: cancellations, pollInterval: pollInterval,
                  valeDelay: .milliseconds(300), valeRunner: { await ValeWorker.shared.run($0) }, onExit: onExit)
    }

    init(output: LSPOutput, actions: LSPDocumentActions, cancellations: LSPCancellations = LSPCancellations(),
         pollInterval: Duration = .milliseconds(500), valeDelay: Duration,
         valeRunner: @escaping @Sendable (ValeJob) async -> [Finding]?, onExit: @escaping @Sendable (Int32) -> Void) {
        self.output = output; self.actions = actions; self.cancellations = cancellations
        self.pollInterval = pollInterval; self.onExit = onExit
        self.valeDelay = valeDelay; self.valeRunner = valeRunner
    }

    // MARK: Dispatch

    /// Handles one framed item from the reader.
    public func receive(_ item: LSPFramer.Item) async {
        switch item {
        case .error(let why):
            output.send(JSONRPCFailure(id: .null, code: JSONRPCError.parseError, message: why).response)
        case .message(let body):
            switch JSONRPCMessage.decode(body) {
            case .failure(let f): output.send(f.response)
            case .success(let m): await handle(m)
            }
        }
    }

    /// Handles one decoded message.
    public func handle(_ message: JSONRPCMessage) async {
        switch message {
        case .response:
            return   // answers to our workspace/diagnostic/refresh; nothing to do
        case .notification(let method, let params):
            await notification(method, params)
        case .request(let id, let method, let params):
            if cancellations.take(id) {
                output.send(JSONRPCFailure(id: id, code: JSONRPCError.requestCancelled, message: "\(method) was cancelled").response)
                return
            }
            do {
                let result = try await request(method, params)
                output.send(["jsonrpc": "2.0", "id": id, "result": result])
            } catch let f as JSONRPCFailure {
                output.send(JSONRPCFailure(id: id, code: f.code, message: f.message).response)
            } catch {
                output.send(JSONRPCFailure(id: id, code: JSONRPCError.internalError, message: "\(method): \(error)").response)
            }
        }
    }

    static func fail(_ code: Int, _ message: String) -> JSONRPCFailure { JSONRPCFailure(id: .null, code: code, message: message) }

    func request(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        if method == "initialize" {
            guard state == .starting else { throw Self.fail(JSONRPCError.invalidRequest, "initialize was already received") }
            return initialize(params)
        }
        switch state {
        case .starting: throw Self.fail(JSONRPCError.serverNotInitialized, "\(method) before initialize")
        case .shuttingDown: throw Self.fail(JSONRPCError.invalidRequest, "\(method) after shutdown")
        case .running: break
        }
        switch method {
        case "shutdown":
            state = .shuttingDown
            watchTask?.cancel()
            for d in documents.values { d.lintTask?.cancel(); d.valeTask?.cancel(); d.valeTicket?.supersede() }
            return .null
        case "textDocument/diagnostic": return try pullDiagnostics(params)
        case "textDocument/codeAction": return try codeActions(params)
        case "textDocument/hover": return try hover(params)
        case "workspace/executeCommand": return try await executeCommand(params)
        default:
            throw Self.fail(JSONRPCError.methodNotFound, "tk-agent lsp does not handle \(method)")
        }
    }

    func notification(_ method: String, _ params: JSONValue) async {
        switch method {
        case "exit":
            watchTask?.cancel()
            onExit(state == .shuttingDown ? 0 : 1)
            return
        case "initialized", "$/cancelRequest", "$/setTrace", "$/progress":
            return
        default:
            break
        }
        guard state == .running else { return }
        switch method {
        case "textDocument/didOpen": didOpen(params)
        case "textDocument/didChange": didChange(params)
        case "textDocument/didSave": didSave(params)
        case "textDocument/didClose": didClose(params)
        case "workspace/didChangeConfiguration":
            settings.apply(params["settings"])
            for p in settings.problems { showMessage(p, type: 2) }
            for uri in documents.keys {
                documents[uri]?.linter = LSPLinter()
                documents[uri]?.loadSidecar(actions: actions)
                lintNow(uri)
            }
        default:
            return   // unknown notifications are ignored, as the protocol says
        }
    }

    // MARK: Lifecycle

    func initialize(_ params: JSONValue) -> JSONValue {
        let offered = params["capabilities"]?["general"]?["positionEncodings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        encoding = offered.contains("utf-8") ? .utf8 : .utf16
        clientPulls = params["capabilities"]?["textDocument"]?["diagnostic"] != nil
        clientRefreshes = params["capabilities"]?["workspace"]?["diagnostics"]?["refreshSupport"]?.boolValue ?? false
        settings.apply(params["initializationOptions"])
        state = .running
        startWatching()
        let commands: [JSONValue] = LSPCommand.allCases.map { .string($0.rawValue) }
        return [
            "capabilities": [
                "positionEncoding": .string(encoding.rawValue),
                "textDocumentSync": ["openClose": true, "change": 2, "save": ["includeText": false]],
                "codeActionProvider": ["codeActionKinds": ["quickfix"], "resolveProvider": false],
                "hoverProvider": true,
                "executeCommandProvider": ["commands": .array(commands)],
                "diagnosticProvider": ["identifier": "tk-agent", "interFileDependencies": false, "workspaceDiagnostics": false],
            ],
            "serverInfo": ["name": "tk-agent", "version": .string(TKVersion.string)],
        ]
    }

    // MARK: Documents

    func didOpen(_ params: JSONValue) {
        guard let td = params["textDocument"], let uri = td["uri"]?.stringValue, let text = td["text"]?.stringValue else { return }
        let lang = td["languageId"]?.stringValue ?? ""
        guard lang == "markdown" || Self.isMarkdownURI(uri) else { return }
        var doc = LSPOpenDocument(uri: uri, text: text, version: td["version"]?.intValue ?? 0)
        if let path = Self.path(fromURI: uri) {
            doc.path = path
            doc.project = actions.project(forFile: path)
            doc.location = actions.locate(file: path)
        }
        doc.loadSidecar(actions: actions)
        if let loc = doc.location { watcher.watch(folder: actions.sidecarPath(loc).parent) }
        documents[uri] = doc
        lintNow(uri)
    }

    func didChange(_ params: JSONValue) {
        guard let uri = params["textDocument"]?["uri"]?.stringValue, documents[uri] != nil else { return }
        let changes = params["contentChanges"]?.arrayValue ?? []
        for c in changes {
            guard let text = c["text"]?.stringValue else { continue }
            if let r = LSPRange(json: c["range"]) {
                documents[uri]!.apply(range: r, text: text, encoding: encoding)
            } else {
                documents[uri]!.replaceAll(text)
            }
        }
        if let v = params["textDocument"]?["version"]?.intValue { documents[uri]!.version = v }
        scheduleLint(uri)
    }

    func didSave(_ params: JSONValue) {
        guard let uri = params["textDocument"]?["uri"]?.stringValue, var doc = documents[uri] else { return }
        if doc.location == nil, let path = doc.path { doc.location = actions.locate(file: path) }
        doc.loadSidecar(actions: actions)
        documents[uri] = doc
        lintNow(uri)
    }

    func didClose(_ params: JSONValue) {
        guard let uri = params["textDocument"]?["uri"]?.stringValue, let doc = documents.removeValue(forKey: uri) else { return }
        doc.lintTask?.cancel()
        doc.valeTask?.cancel()
        doc.valeTicket?.supersede()
        if !clientPulls {
            output.send(["jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                         "params": ["uri": .string(uri), "diagnostics": []]])
        }
    }

    func scheduleLint(_ uri: String) {
        documents[uri]?.lintTask?.cancel()
        documents[uri]?.dirty = true
        let delay = settings.debounceMs
        documents[uri]?.lintTask = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(delay))
            guard !Task.isCancelled else { return }
            await self?.lintNow(uri)
        }
    }

    /// Lints the buffer and publishes (push clients) or tells pull clients to refresh.
    func lintNow(_ uri: String) {
        guard documents[uri] != nil else { return }
        let changed = documents[uri]!.relint(actions: actions, settings: settings, encoding: encoding)
        if clientPulls {
            if changed && clientRefreshes { sendRequest("workspace/diagnostic/refresh", .null) }
        } else if changed || documents[uri]!.publishedVersion != documents[uri]!.version {
            // Every new version gets its push, so a client can tell its diagnostics are current.
            publish(uri)
        }
        scheduleVale(uri)
    }

    /// Starts the Vale pass the last lint asked for, once the buffer has rested `valeDelay`: off the
    /// actor, so keystrokes are linted and published meanwhile. A newer edit cancels the wait; a
    /// pass that finishes on bytes the buffer no longer has is dropped (the newer one follows).
    func scheduleVale(_ uri: String) {
        guard var job = documents[uri]?.valeJob else { return }
        documents[uri]?.valeJob = nil
        documents[uri]?.valeTask?.cancel()
        documents[uri]?.valeTicket?.supersede()
        let ticket = ValeTicket()
        job.ticket = ticket
        documents[uri]?.valeTicket = ticket
        let delay = valeDelay, runner = valeRunner
        documents[uri]?.valeTask = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            let found = await runner(job)
            guard !Task.isCancelled, let found else { return }
            await self?.valeDone(uri, job: job, findings: found)
        }
    }

    func valeDone(_ uri: String, job: ValeJob, findings: [Finding]) {
        guard documents[uri]?.edits == job.edits else { return }
        documents[uri]!.valeFindings = findings
        documents[uri]!.valeKey = job.key
        documents[uri]!.dirty = true
        lintNow(uri)
    }

    func publish(_ uri: String) {
        guard let doc = documents[uri] else { return }
        documents[uri]?.publishedVersion = doc.version
        // The message with its keys sorted, as `JSONValue.wireBytes` writes them; the diagnostics
        // from their cached bytes.
        var body = Array(#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":"#.utf8)
        body += doc.publishParamsBytes()
        body.append(125)
        output.send(body: body)
    }

    func pullDiagnostics(_ params: JSONValue) throws -> JSONValue {
        guard let uri = params["textDocument"]?["uri"]?.stringValue else {
            throw Self.fail(JSONRPCError.invalidParams, "textDocument/diagnostic needs textDocument.uri")
        }
        guard documents[uri] != nil else { return ["kind": "full", "items": []] }
        if documents[uri]!.dirty {
            documents[uri]!.lintTask?.cancel()
            _ = documents[uri]!.relint(actions: actions, settings: settings, encoding: encoding)
            scheduleVale(uri)
        }
        let doc = documents[uri]!
        let rid = String(doc.resultID)
        if params["previousResultId"]?.stringValue == rid { return ["kind": "unchanged", "resultId": .string(rid)] }
        return ["kind": "full", "resultId": .string(rid), "items": .array(doc.diagnostics)]
    }

    // MARK: Sidecars

    func startWatching() {
        let interval = pollInterval
        watcher.start { [weak self] in
            Task { await self?.pollSidecars() }
        }
        watchTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                await self.pollSidecars()
            }
        }
    }

    /// Re-reads the sidecars that changed on disk; tells the writer about new suggestions.
    func pollSidecars() {
        for uri in documents.keys {
            guard var doc = documents[uri] else { continue }
            if doc.location == nil, let path = doc.path, FileSystem.lstatIfExists(path) != nil {
                doc.location = actions.locate(file: path)
            }
            guard let loc = doc.location else { continue }
            let sidecarPath = actions.sidecarPath(loc)
            watcher.watch(folder: sidecarPath.parent)
            let st = FileSystem.lstatIfExists(sidecarPath)
            let stamp = st.map { [$0.mtimeNs, $0.size] }
            guard stamp != doc.sidecarStamp else { continue }
            let before = doc.knownSuggestionIDs
            doc.loadSidecar(actions: actions)
            let fresh = doc.pending.filter { !before.contains($0.id) }
            documents[uri] = doc
            lintNow(uri)
            if !fresh.isEmpty && settings.showSuggestions {
                showMessage(Self.arrivalMessage(fresh.map(\.advisorId), name: actions.advisorName), type: 3)
            }
        }
    }

    /// "3 suggestions from the editor and the copywriter".
    static func arrivalMessage(_ advisors: [String], name: (String) -> String) -> String {
        var seen: [String] = []
        for a in advisors where !seen.contains(a) { seen.append(a) }
        let names = seen.map { "the " + name($0) }
        let list: String
        switch names.count {
        case 0: list = "your advisors"
        case 1: list = names[0]
        default: list = names.dropLast().joined(separator: ", ") + " and " + names.last!
        }
        let n = advisors.count
        return "\(n) suggestion\(n == 1 ? "" : "s") from \(list)"
    }

    func showMessage(_ text: String, type: Int) {
        output.send(["jsonrpc": "2.0", "method": "window/showMessage", "params": ["type": .int(type), "message": .string(text)]])
    }

    func sendRequest(_ method: String, _ params: JSONValue) {
        let id = nextOutgoingID
        nextOutgoingID += 1
        var m: [String: JSONValue] = ["jsonrpc": "2.0", "id": .string("tk-\(id)"), "method": .string(method)]
        if params != .null { m["params"] = params }
        output.send(.object(m))
    }

    // MARK: URIs

    static func isMarkdownURI(_ uri: String) -> Bool {
        let u = uri.lowercased()
        return u.hasSuffix(".md") || u.hasSuffix(".markdown")
    }

    /// The file path of a `file://` URI (percent-decoded), nil for other schemes.
    public static func path(fromURI uri: String) -> PathBytes? {
        guard uri.hasPrefix("file://") else { return nil }
        var rest = Array(uri.utf8.dropFirst(7))
        // file://host/path: keep only the path.
        if let slash = rest.firstIndex(of: 47) { rest = Array(rest[slash...]) } else { return nil }
        var out: [UInt8] = []
        var i = 0
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 48...57: b - 48
            case 65...70: b - 55
            case 97...102: b - 87
            default: nil
            }
        }
        while i < rest.count {
            if rest[i] == 37, i + 2 < rest.count, let h = hex(rest[i + 1]), let l = hex(rest[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(rest[i])
                i += 1
            }
        }
        return PathBytes(out)
    }
}
