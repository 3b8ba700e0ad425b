import ArgumentParser
import Foundation
import TKCore

/// What the suggestion commands share: the journey actions over the shared database, and finding a
/// suggestion by id (`ID`, or `FILE ID` to look in one document only).
enum SuggestionLookup {
    static func actions() -> JourneyActions {
        let paths = Paths.resolve()
        return JourneyActions(paths: paths, database: try? AppDatabase.open(paths: paths))
    }

    /// The project and relative path of a document the user named (`deleted`: or a deleted one the
    /// database keeps the history of).
    static func locate(file: String, actions: JourneyActions, deleted: Bool = false) throws -> DocumentLocation {
        do { return try actions.locate(file: file, deleted: deleted) } catch { throw CLIError(error.description) }
    }

    /// A named document and its sidecar as it stands (rebuilt when broken; the reason is printed).
    static func current(file: String, actions: JourneyActions) throws -> (DocumentLocation, ReviewSidecar) {
        let loc = try locate(file: file, actions: actions)
        let (sidecar, problem): (ReviewSidecar, String?)
        do { (sidecar, problem) = try actions.current(loc) } catch { throw CLIError("\(file): \(error)") }
        if let problem { printError("warning: \(problem)") }
        return (loc, sidecar)
    }

    /// The document that holds suggestion `id`.
    static func locate(id: String, file: String?, actions: JourneyActions) throws -> DocumentLocation {
        if let file { return try locate(file: file, actions: actions) }
        let cwdRoot = CheckSession.projectRoot(startingAt: FileSystem.absolute("."))
        guard let loc = actions.find(suggestion: id, extraRoots: [cwdRoot]) else {
            throw CLIError("no suggestion \(id) in the watched projects; list a document's with `tk-agent suggestions FILE`")
        }
        return loc
    }

    /// Sets a suggestion's status (optionally rewriting the document) and prints what happened.
    static func decide(first: String, second: String?, status: SuggestionStatus, replacement: JourneyActions.Replacement?, json: Bool) throws {
        let (file, id) = second.map { (Optional(first), $0) } ?? (nil, first)
        let actions = actions()
        let loc = try locate(id: id, file: file, actions: actions)
        let result: JourneyActions.Result
        if replacement != nil, let db = try? AppDatabase.open(paths: actions.paths) { ProgressHooks.snapshot(
            paths: actions.paths, database: db, project: loc.project, document: loc.relative,
            config: actions.resolver.configuration(project: loc.project).config, reason: "accept") }
        do {
            result = try actions.decide(id: id, at: loc, status: status, replacement: replacement)
        } catch let e as JourneyActionError {
            throw CLIError(e.description)
        } catch {
            throw CLIError("\(loc.relative.display): \(error)")
        }
        if let problem = result.problem { printError("warning: \(problem)") }
        nudgeAgent()
        if json {
            print(JSON.string(DecisionOutput(result: result)))
            return
        }
        let what = result.applied ? "applied and \(status.rawValue)" : status.rawValue
        let was = result.previousStatus == status ? "" : " (was \(result.previousStatus.rawValue))"
        print("\(id): \(what)\(was) — \(loc.relative.display)")
        if let ready = result.readyMessage { print(ready) }
    }

    /// Asks a running agent to refresh its status (stage and pending counts changed).
    static func nudgeAgent() {
        _ = AgentLock.signal(paths: Paths.resolve(), SIGUSR1)
    }

    struct DecisionOutput: Encodable {
        var result: JourneyActions.Result
        enum Key: String, CodingKey { case project, document, suggestion, previousStatus = "previous_status", applied, ready }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(result.location.project.display, forKey: .project)
            try c.encode(result.location.relative.display, forKey: .document)
            try c.encode(result.suggestion, forKey: .suggestion)
            try c.encode(result.previousStatus, forKey: .previousStatus)
            try c.encode(result.applied, forKey: .applied)
            try c.encode(result.readyMessage, forKey: .ready)
        }
    }
}
