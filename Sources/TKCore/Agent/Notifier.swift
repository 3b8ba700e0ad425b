import Foundation
import Logging
import Synchronization

/// Desktop notifications through `notifications.command` (default `notify-send`, app name `tk-agent`).
///
/// The default `notify-send` is run only with a session bus (`DBUS_SESSION_BUS_ADDRESS`, or the socket
/// at `$XDG_RUNTIME_DIR/bus`) and gets `-a tk-agent TITLE BODY`. Any other command runs bus or no bus,
/// with `TITLE BODY` as its arguments and `TK_TITLE`, `TK_BODY`, `TK_DOCUMENT` (the document's absolute
/// path, empty when there is none) in its environment. A failure is logged and never fatal; the
/// command is killed after a timeout.
public struct Notifier: Sendable {
    public var enabled: Bool
    /// The program and its leading arguments, split on spaces (`notify-send -u low`).
    public var command: String
    public var environment: [String: String]
    public var logger: Logger
    public var timeout: Duration

    public init(settings: Configuration.Notifications, environment: [String: String], logger: Logger,
                timeout: Duration = .seconds(10)) {
        self.enabled = settings.enabled; self.command = settings.command; self.environment = environment
        self.logger = logger; self.timeout = timeout
    }

    /// The session bus address the command should use, or nil when there is no session bus.
    public static func sessionBus(environment env: [String: String]) -> String? {
        if let address = env["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = env["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            let socket = FileSystem.absolute(runtime).appending("bus")
            if FileSystem.lstatIfExists(socket) != nil { return "unix:path=\(socket.display)" }
        }
        return nil
    }

    /// The notification for a finished round: the document, how many suggestions, the top one.
    public static func roundMessage(document: String, suggestions: [Suggestion]) -> (title: String, body: String) {
        let pending = suggestions.filter { $0.status == .pending }
        guard let top = pending.min(by: { ($0.priority, -$0.confidence) < ($1.priority, -$1.confidence) }) else {
            return (document, "Review done: no suggestions this time.")
        }
        let n = pending.count
        let original = clip(top.originalText, 60)
        let change = top.suggestedText.isEmpty ? "remove “\(original)”" : "“\(original)” → “\(clip(top.suggestedText, 80))”"
        return (document, "\(n) suggestion\(n == 1 ? "" : "s"). Top (\(top.advisorId)): \(change)")
    }

    static func clip(_ s: String, _ n: Int) -> String {
        let one = s.split(whereSeparator: \.isNewline).joined(separator: " ")
        return one.count <= n ? one : String(one.prefix(n - 1)) + "…"
    }

    /// Whether a command is the default `notify-send` (by its program's name), which needs a session bus.
    public static func isNotifySend(_ command: String) -> Bool {
        guard let program = command.split(separator: " ").first else { return false }
        return program.split(separator: "/").last == "notify-send"
    }

    /// The program's arguments and environment for one notification, or nil when it cannot be sent
    /// (no command, or `notify-send` without a session bus).
    public static func invocation(command: String, title: String, body: String, document: String,
                                  environment: [String: String]) -> (arguments: [String], environment: [String: String])? {
        let words = command.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        var env = environment
        if isNotifySend(command) {
            guard let bus = sessionBus(environment: environment) else { return nil }
            env["DBUS_SESSION_BUS_ADDRESS"] = bus
            return (words + ["-a", "tk-agent", title, body], env)
        }
        env["TK_TITLE"] = title
        env["TK_BODY"] = body
        env["TK_DOCUMENT"] = document
        return (words + [title, body], env)
    }

    /// Shows a notification. Returns whether the command ran and exited 0.
    /// - Parameter document: the document's absolute path (`TK_DOCUMENT` for a custom command).
    @discardableResult
    public func notify(title: String, body: String, document: String = "") async -> Bool {
        guard enabled else { return false }
        guard let (arguments, env) = Self.invocation(command: command, title: title, body: body, document: document,
                                                     environment: environment) else {
            logger.debug("no session bus for notify-send; notification not sent")
            return false
        }
        let words = arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let box = ProcessBox(process)
        let status: Int32? = await withCheckedContinuation { (cont: CheckedContinuation<Int32?, Never>) in
            let once = ResumeOnce(cont)
            process.terminationHandler = { p in once.resume(p.terminationStatus) }
            do { try process.run() } catch {
                logger.warning("notification command failed to start", metadata: ["command": "\(words[0])", "error": "\(error)"])
                once.resume(nil)
                return
            }
            let limit = timeout
            Task {
                try? await Task.sleep(for: limit)
                if box.process.isRunning {
                    box.process.terminate()
                    once.resume(nil)
                }
            }
        }
        if status == 0 { return true }
        logger.warning("notification not shown", metadata: [
            "command": "\(words[0])", "status": "\(status.map(String.init) ?? "timed out or did not start")",
        ])
        return false
    }
}

/// Holds a `Process` for the timeout task. `Process` is thread-safe for `isRunning`/`terminate`, which
/// is all the box is used for.
final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

/// Resumes a continuation at most once (exit and timeout race).
final class ResumeOnce<T: Sendable>: Sendable {
    private let state: Mutex<CheckedContinuation<T, Never>?>
    init(_ c: CheckedContinuation<T, Never>) { state = Mutex(c) }
    func resume(_ value: T) {
        let c = state.withLock { s -> CheckedContinuation<T, Never>? in
            defer { s = nil }
            return s
        }
        c?.resume(returning: value)
    }
}
