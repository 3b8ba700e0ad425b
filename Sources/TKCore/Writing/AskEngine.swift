import Foundation
import GRDB

/// Why a passage could not be taken from a document.
public enum PassageError: Error, Equatable, Sendable, CustomStringConvertible {
    case lineOutOfRange(line: Int, lines: Int)
    case badRange(String)

    public var description: String {
        switch self {
        case .lineOutOfRange(let l, let n): "line \(l) is outside the document (it has \(n) line\(n == 1 ? "" : "s"))"
        case .badRange(let why): why
        }
    }
}

/// A passage of a document and the text around it.
public struct Passage: Sendable, Equatable {
    public var text: String
    /// About 500 characters on each side, widened to the whole enclosing paragraph.
    public var context: String
    public var firstLine: Int
    public var lastLine: Int
}

/// Picks passages and keeps conversations for `tk-agent ask`.
public enum AskEngine {
    /// Characters of context on each side of a passage.
    public static let contextCharacters = 500
    /// Earlier exchanges sent with `--continue`.
    public static let historyLimit = 10

    /// Lines `first...last` (1-based, inclusive) of a text and their surroundings.
    public static func passage(in text: String, lines first: Int, _ last: Int) throws(PassageError) -> Passage {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let count = text.hasSuffix("\n") ? all.count - 1 : all.count
        guard first >= 1, last >= first else {
            throw .badRange("the range must be START:END with 1 ≤ START ≤ END (got \(first):\(last))")
        }
        guard first <= count else { throw .lineOutOfRange(line: first, lines: count) }
        let end = min(last, count)
        let passage = all[(first - 1)..<end].joined(separator: "\n")

        // Enclosing paragraph: widen to the nearest blank lines.
        var pStart = first - 1
        while pStart > 0, !all[pStart - 1].trimmingCharacters(in: .whitespaces).isEmpty { pStart -= 1 }
        var pEnd = end - 1
        while pEnd + 1 < count, !all[pEnd + 1].trimmingCharacters(in: .whitespaces).isEmpty { pEnd += 1 }
        // About 500 characters each side, in whole lines.
        var before = 0
        var cStart = first - 1
        while cStart > 0, before < contextCharacters {
            cStart -= 1
            before += all[cStart].count + 1
        }
        var after = 0
        var cEnd = end - 1
        while cEnd + 1 < count, after < contextCharacters {
            cEnd += 1
            after += all[cEnd].count + 1
        }
        let lo = min(pStart, cStart), hi = max(pEnd, cEnd)
        let context = all[lo...hi].joined(separator: "\n")
        return Passage(text: passage, context: context, firstLine: first, lastLine: end)
    }

    /// Parses `--range START:END` (or a single line `N`).
    public static func parseRange(_ s: String) -> (Int, Int)? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]) { return (n, n) }
        guard parts.count == 2, let a = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let b = Int(parts[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        return (a, b)
    }

    /// The request for a question, following earlier exchanges when given.
    public static func request(prompt: RenderedPrompt, history: [AskExchange], model: String?,
                               maxOutputTokens: Int) -> LLMRequest {
        var messages: [LLMMessage] = []
        for h in history.suffix(historyLimit) {
            messages.append(LLMMessage(role: .user, content: h.prompt))
            messages.append(LLMMessage(role: .assistant, content: h.answer))
        }
        messages.append(LLMMessage(role: .user, content: prompt.user))
        return LLMRequest(system: prompt.system, messages: messages, model: model, maxOutputTokens: maxOutputTokens,
                          stream: true)
    }
}

/// One question and answer of a conversation.
public struct AskExchange: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public var conversation: String
    /// What the conversation is about: an absolute file path, or `text:<sha256>` for given text.
    public var subject: String
    public var roleId: String
    public var question: String
    /// The user message as sent (question, passage, context).
    public var prompt: String
    public var answer: String
    public var createdAt: String

    public static let databaseTableName = "ask_message"

    enum CodingKeys: String, CodingKey {
        case conversation, subject, question, prompt, answer
        case roleId = "role_id", createdAt = "created_at"
    }

    /// The subject of the conversations about a file: `file:` and the SHA-256 of its absolute path
    /// (migration v2-identity-ask-subject-digest turned the paths stored before into these).
    public static func fileSubject(_ path: PathBytes) -> String { "file:" + SHA256Digest.hex(path.bytes) }

    public init(conversation: String, subject: String, roleId: String, question: String, prompt: String,
                answer: String, createdAt: String) {
        self.conversation = conversation; self.subject = subject; self.roleId = roleId; self.question = question
        self.prompt = prompt; self.answer = answer; self.createdAt = createdAt
    }
}

extension AppDatabase {
    /// The exchanges of the most recent conversation about a subject, oldest first.
    public func lastConversation(subject: String) throws -> [AskExchange] {
        try reader.read { db in
            guard let conv = try String.fetchOne(
                db, sql: "SELECT conversation FROM ask_message WHERE subject = ? ORDER BY id DESC LIMIT 1",
                arguments: [subject])
            else { return [] }
            return try AskExchange.fetchAll(
                db, sql: "SELECT * FROM ask_message WHERE conversation = ? ORDER BY id", arguments: [conv])
        }
    }

    /// Records one exchange.
    public func record(_ exchange: AskExchange) throws {
        try writer.write { db in try exchange.insert(db) }
    }
}
