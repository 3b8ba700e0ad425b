import Dispatch
import Foundation

/// Retrieval for a question, as `ask --project` and `search --hybrid` use it: the question's
/// embedding when a provider is there and the passages are embedded, else keyword-only (and why).
public struct RetrievalOutcome: Sendable {
    public var passages: [RetrievedPassage]
    /// Why retrieval was keyword-only, when it was (say it once).
    public var keywordOnlyReason: String?
    /// Tokens of the question's embedding (and the client that counted them).
    public var queryTokens: Int
    public var client: EmbeddingClient?
    /// Milliseconds spent waiting for the question's embedding, and in retrieval itself.
    public var embedMs: Double = 0
    public var retrieveMs: Double = 0
    /// Milliseconds spent finding the embedding provider (Ollama's `/api/tags`) and checking the
    /// stored vectors, before the question's embedding was asked for.
    public var providerMs: Double = 0
}

public enum AskRetrieval {
    public enum Mode: Sendable { case hybrid, semantic, keyword }

    /// - Parameters:
    ///   - allowRemote: whether the question may be sent to a remote embedding provider.
    public static func retrieve(_ question: String, database: AppDatabase, configuration: Configuration,
                                scope: RetrievalScope, limit: Int, mode: Mode = .hybrid,
                                allowRemote: Bool = true,
                                environment: [String: String] = ProcessEnvironment.current,
                                provider: Task<EmbeddingClientFactory.Outcome, Never>? = nil) async throws -> RetrievalOutcome {
        let retriever = HybridRetriever(database: database)
        let t0 = DispatchTime.now().uptimeNanoseconds
        var providerMs = 0.0
        var reason: String?
        var query: QuantizedVector?
        var tokens = 0
        var client: EmbeddingClient?
        var embedMs = 0.0
        var early: HybridRetriever.KeywordList?
        var earlyMs = 0.0
        if mode != .keyword {
            // A caller may have started looking for the provider already (it waits on the network).
            let found = if let provider { await provider.value } else {
                await EmbeddingClientFactory.make(configuration: configuration, environment: environment, forQuestions: true)
            }
            defer { if providerMs == 0 { providerMs = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6 } }
            switch found {
            case .none(let why):
                reason = why
            case .client(let c):
                client = c
                if c.isRemote && !allowRemote {
                    reason = "the embedding provider is remote and --sources sends nothing"
                } else if try !database.hasVectors(model: c.modelID) {
                    reason = "no passage is embedded with \(c.modelID) yet (the agent embeds them in the background)"
                } else {
                    // Many vectors not in packs yet (a database from before packs, or written while no
                    // agent ran): packed once now, when this process can write, instead of read one
                    // row each on every question.
                    if (try? database.unpackedVectorCount(model: c.modelID)) ?? 0 >= VectorPacks.askThreshold {
                        _ = try? database.packVectors(model: c.modelID)
                    }
                    providerMs = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                    // The keyword side needs no embedding: it is found while the question's is on
                    // its way (the wait on the provider, not ours, is what remains).
                    async let reply = c.embed([question], purpose: .query)
                    let tAsk = DispatchTime.now().uptimeNanoseconds
                    if mode == .hybrid {
                        let t = DispatchTime.now().uptimeNanoseconds
                        early = try? retriever.keywordList(question, scope: scope, weighed: true)
                        earlyMs = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6
                    }
                    do {
                        let (v, t) = try await reply
                        if let first = v.first { query = QuantizedVector(first) }
                        tokens = t
                    } catch {
                        // `async let` forgets the typed throw: the error is the client's `LLMProviderError`.
                        let why = (error as? LLMProviderError)?.message ?? String(describing: error)
                        reason = "the question could not be embedded (\(why))"
                    }
                    // The wait for the reply, without the keyword search made during it.
                    embedMs = max(0, Double(DispatchTime.now().uptimeNanoseconds - tAsk) / 1e6 - earlyMs)
                }
            }
        }
        let t1 = DispatchTime.now().uptimeNanoseconds
        var passages: [RetrievedPassage]
        if mode == .semantic, let query, let client {
            passages = try retriever.retrieve(question, scope: scope, limit: limit, query: query, model: client.modelID,
                                              keywordWeight: 0, vectorWeight: 1)
        } else {
            passages = try retriever.retrieve(question, scope: scope, limit: limit, query: query, model: client?.modelID,
                                              keywordList: early)
        }
        if query == nil, reason == nil { reason = "keyword-only" }
        if mode == .keyword { reason = nil }
        passages.sort { $0.score > $1.score }
        let retrieveMs = Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6 + earlyMs
        return RetrievalOutcome(passages: passages, keywordOnlyReason: query == nil ? reason : nil,
                                queryTokens: tokens, client: query == nil ? nil : client, embedMs: embedMs, retrieveMs: retrieveMs,
                                providerMs: providerMs)
    }

    /// The system prompt of `ask --project` (byte-stable, so that providers can cache it).
    public static let systemPrompt = """
        You answer a writer's questions about their own project, using only the numbered passages \
        from it that are given with the question. Cite every statement with the number of the \
        passage it comes from, in square brackets, like [1] or [2][3]. Cite only numbers that \
        appear in the list. If the passages do not contain the answer, say so plainly instead of \
        guessing, and never use knowledge from outside the passages.
        """

    /// The user message: the numbered passages, then the question.
    public static func userPrompt(question: String, passages: [RetrievedPassage]) -> String {
        var s = "Passages:\n\n"
        for (i, r) in passages.enumerated() {
            let p = r.passage
            s += "[\(i + 1)] \(p.path.display):\(p.startLine)-\(p.endLine)"
            if !p.heading.isEmpty { s += " (\(p.heading))" }
            s += "\n\(p.text)\n\n"
        }
        s += "Question: \(question)\n"
        return s
    }
}

/// Checks `[n]` citations against the passages that were sent, as the answer streams: a citation
/// of a number that was not sent is removed from the text and counted.
public struct CitationFilter: Sendable {
    public let count: Int
    /// Every citation seen, in order: (n, valid).
    public private(set) var citations: [(n: Int, valid: Bool)] = []
    public private(set) var dropped = 0
    var pending = ""

    public init(count: Int) { self.count = count }

    /// Takes the next piece of the answer; returns what can be shown now.
    public mutating func push(_ piece: String) -> String {
        var out = ""
        for ch in piece {
            if pending.isEmpty {
                if ch == "[" { pending = "[" } else { out.append(ch) }
                continue
            }
            pending.append(ch)
            if ch == "]" {
                out += resolve(pending)
                pending = ""
            } else if !(ch.isNumber || ch == "," || ch == " ") || pending.count > 40 {
                // Not a citation after all.
                if ch == "[" { pending.removeLast(); out += pending; pending = "[" } else { out += pending; pending = "" }
            }
        }
        return out
    }

    /// The rest of the answer once it is complete.
    public mutating func finish() -> String {
        defer { pending = "" }
        return pending
    }

    /// `[1, 7]` → the valid numbers kept (`[1]`), or "" when none is valid.
    mutating func resolve(_ group: String) -> String {
        let inner = group.dropFirst().dropLast()
        let parts = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return group }
        var kept: [Int] = []
        for p in parts {
            guard let n = Int(p) else { return group }
            let valid = n >= 1 && n <= count
            citations.append((n, valid))
            if valid { kept.append(n) } else { dropped += 1 }
        }
        return kept.isEmpty ? "" : "[" + kept.map(String.init).joined(separator: ", ") + "]"
    }

    /// Filters a whole answer at once.
    public static func filter(_ text: String, count: Int) -> (text: String, filter: CitationFilter) {
        var f = CitationFilter(count: count)
        let out = f.push(text) + f.finish()
        return (out, f)
    }
}
