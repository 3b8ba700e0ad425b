import Foundation
import GRDB
import Testing
@testable import TKCore

/// Texts that fit the embedding model: the token estimate, the windows of a long passage, the
/// model's context, and retrieval that scores a long passage by its best window.
@Suite struct EmbeddingWindowsTests {
    @Test func theEstimateCountsWordsPiecesAndSymbols() {
        #expect(EmbeddingWindows.estimatedTokens("") == 0)
        #expect(EmbeddingWindows.estimatedTokens("the cat sat") == 3)
        #expect(EmbeddingWindows.estimatedTokens("the cat, sat.") == 5)
        // Long and camel-cased words are several pieces; digits a piece per three.
        #expect(EmbeddingWindows.estimatedTokens("internationalisation") >= 4)
        #expect(EmbeddingWindows.estimatedTokens("OutlookCalendarCheckTask") >= 5)
        #expect(EmbeddingWindows.estimatedTokens("1234567") == 3)
        // Letters of other scripts count; CJK a piece each.
        #expect(EmbeddingWindows.estimatedTokens("Straße café") == 3)
        #expect(EmbeddingWindows.estimatedTokens("日本語") == 3)
    }

    @Test func aPassageThatFitsIsEmbeddedWhole() {
        let texts = EmbeddingWindows.texts(heading: "Ch 1 > Storm", text: "The sea rose at night.", budget: 100)
        #expect(texts == ["Ch 1 > Storm\n\nThe sea rose at night."])
        #expect(EmbeddingWindows.texts(heading: "", text: "Calm.", budget: 100) == ["Calm."])
    }

    /// A long passage becomes overlapping windows: each fits, each carries the heading path, every
    /// word is in one, and each window repeats the end of the one before.
    @Test func aLongPassageBecomesOverlappingWindowsThatFit() {
        let words = (0..<900).map { "word\($0 % 37)x\($0)" }
        let text = stride(from: 0, to: words.count, by: 15).map { words[$0..<min(words.count, $0 + 15)].joined(separator: " ") }
            .joined(separator: "\n")
        let budget = 120
        let windows = EmbeddingWindows.texts(heading: "Part > Scene", text: text, budget: budget)
        #expect(windows.count > 5)
        var seen = Set<String>()
        var previous: [Substring] = []
        for w in windows {
            #expect(w.hasPrefix("Part > Scene\n\n"))
            #expect(EmbeddingWindows.estimatedTokens(w) <= budget)
            let body = w.dropFirst("Part > Scene\n\n".count).split(whereSeparator: \.isWhitespace)
            #expect(text.contains(w.dropFirst("Part > Scene\n\n".count)))
            if let first = body.first, !previous.isEmpty { #expect(previous.contains(first)) }
            previous = body
            for b in body { seen.insert(String(b)) }
        }
        #expect(seen == Set(words))
        // Another budget plans other windows (and other keys).
        let wider = EmbeddingWindows.texts(heading: "Part > Scene", text: text, budget: 300)
        #expect(wider.count < windows.count)
        #expect(EmbeddingWindows.plan(budget: 120) != EmbeddingWindows.plan(budget: 300))
        #expect(Set(windows.map(EmbeddingWindows.key)).count == windows.count)
    }

    @Test func theModelsContextComesFromTheServerTheTableOrTheSetting() throws {
        let minilm = try JSONValue.parse(Array("""
            {"model_info": {"general.architecture": "bert", "bert.context_length": 512}, "parameters": ""}
            """.utf8))
        #expect(EmbeddingContext.fromOllamaShow(minilm) == 512)
        // The table knows all-minilm reads 256 of the 512 positions Ollama reports.
        #expect(EmbeddingContext.resolve(configured: nil, server: 512, model: "all-minilm:latest") == 256)
        let nomic = try JSONValue.parse(Array("""
            {"model_info": {"nomic-bert.context_length": 2048}, "parameters": "num_ctx                        8192"}
            """.utf8))
        #expect(EmbeddingContext.fromOllamaShow(nomic) == 2048)
        let capped = try JSONValue.parse(Array("""
            {"model_info": {"llama.context_length": 32768}, "parameters": "stop \\"x\\"\\nnum_ctx 1024"}
            """.utf8))
        #expect(EmbeddingContext.fromOllamaShow(capped) == 1024)
        // Without num_ctx, Ollama's runner reads its default at most.
        let big = try JSONValue.parse(Array("""
            {"model_info": {"qwen3.context_length": 32768}}
            """.utf8))
        #expect(EmbeddingContext.fromOllamaShow(big) == EmbeddingContext.ollamaDefaultContext)
        #expect(EmbeddingContext.fromOllamaShow(try JSONValue.parse(Array("{}".utf8))) == nil)
        #expect(EmbeddingContext.resolve(configured: nil, server: nil, model: "text-embedding-3-small") == 8191)
        #expect(EmbeddingContext.resolve(configured: nil, server: nil, model: "some-local-model") == EmbeddingContext.fallback)
        #expect(EmbeddingContext.resolve(configured: 64, server: 512, model: "all-minilm") == 64)
    }

    /// A long passage whose end alone matches the question is found by its last window, scored by
    /// its best window, and counted once.
    @Test func aLongPassageIsFoundByItsBestWindow() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let filler = (0..<300).map { "quiet\($0) harbour" }.joined(separator: " ")
        try db.apply(projectID: pid, upserts: [
            .parsed("long.md", "# Voyage\n\n\(filler) and at last the lighthouse burned\n"),
            .parsed("short.md", "# Other\n\nA short note about gardens.\n"),
        ])
        let budget = 60
        let plan = EmbeddingWindows.plan(budget: budget)
        let unplanned = try db.unplannedPassages(plan: plan)
        #expect(unplanned.count == 2)
        // Planning goes on after the last passage it got, one at a time here.
        let first = try db.unplannedPassages(plan: plan, limit: 1)
        #expect(first.map(\.digest) == [unplanned[0].digest])
        #expect(try db.unplannedPassages(plan: plan, after: first[0].id, limit: 1).map(\.digest) == [unplanned[1].digest])
        #expect(try db.unplannedPassages(plan: plan, after: unplanned[1].id).isEmpty)
        try db.storeWindows(plan: plan, unplanned.map { p in
            let texts = EmbeddingWindows.texts(heading: p.heading, text: p.text, budget: budget)
            return (p.digest, texts.count == 1 ? [p.digest] : texts.map(EmbeddingWindows.key))
        })
        #expect(try db.unplannedPassages(plan: plan).isEmpty)
        let pending = try db.passagesWithoutVectors(model: "m", plan: plan)
        let texts = try db.embeddingTexts(pending, budget: budget)
        #expect(pending.count > 3)
        #expect(texts.count == pending.count)
        #expect(texts.values.allSatisfy { EmbeddingWindows.estimatedTokens($0) <= budget })
        // The question's direction for the window with "lighthouse", another for the rest.
        func vector(_ axis: Int) -> QuantizedVector { QuantizedVector((0..<8).map { $0 == axis ? 1 : 0.01 }) }
        try db.storeVectors(model: "m", pending.map { p in (p.key, vector(texts[p.key]?.contains("lighthouse") == true ? 0 : 1)) })
        #expect(try db.passagesWithoutVectors(model: "m", plan: plan).isEmpty)
        #expect(try db.embeddingProgress(model: "m", plan: plan).embedded == pending.count)
        let retriever = HybridRetriever(database: db)
        let scope = RetrievalScope(projectIDs: [pid])
        let found = try retriever.semantic(vector(0), model: "m", scope: scope)
        let long = try #require(try db.reader.read { try Int64.fetchOne($0, sql: "SELECT p.id FROM passage p JOIN document d ON d.id = p.document_id WHERE d.path = x'6c6f6e672e6d64'") })
        #expect(found.first?.id == long)
        #expect(found.filter { $0.id == long }.count == 1)
        let scores = try retriever.vectorScores([long], query: vector(0), model: "m")
        #expect((scores[long] ?? 0) > 0.9)
        // Pruning keeps every window's vector while its passage exists.
        try db.pruneVectors()
        #expect(try db.passagesWithoutVectors(model: "m", plan: plan).isEmpty)
    }

    /// The two questions the worker asks at every start look a key up in the model's vectors
    /// listed once, never by a scan of them per key (quadratic: minutes on a restart with a
    /// corpus embedded, uninterruptible).
    @Test func theWorkersQuestionsDoNotScanTheVectorsPerText() throws {
        let db = try AppDatabase.inMemory()
        for sql in [AppDatabase.embeddedCountSQL, AppDatabase.withoutVectorsSQL] {
            let plan = try db.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [1, "m"]).map { $0["detail"] as String }
            }
            #expect(!plan.contains { $0.contains("CORRELATED") }, "\(plan)")
            #expect(plan.contains { $0.contains("LIST SUBQUERY") }, "\(plan)")
        }
    }

    /// Each model gets the instruction its card gives, on the side it gives it; the others none.
    @Test func aQuestionCarriesTheInstructionItsModelWasTrainedWith() {
        let search = "Represent this sentence for searching relevant passages: "
        for model in ["mxbai-embed-large:latest", "mxbai-embed-large:335m", "snowflake-arctic-embed:l", "bge-large:latest",
                      "BAAI/bge-small-en-v1.5"] {
            #expect(EmbeddingClient.instruction(model: model, .query) == search, "\(model)")
            #expect(EmbeddingClient.instruction(model: model, .document) == "", "\(model)")
        }
        #expect(EmbeddingClient.instruction(model: "snowflake-arctic-embed2", .query) == "query: ")
        #expect(EmbeddingClient.instruction(model: "nomic-embed-text:v1.5", .query) == "search_query: ")
        #expect(EmbeddingClient.instruction(model: "nomic-embed-text", .document) == "search_document: ")
        for model in ["all-minilm:l6-v2", "bge-m3", "text-embedding-3-small", "wordllama-embed", "granite-embedding"] {
            #expect(EmbeddingClient.instruction(model: model, .query) == "", "\(model)")
            #expect(EmbeddingClient.instruction(model: model, .document) == "", "\(model)")
        }
        // A document's window budget leaves room only for the document's own prefix.
        let mxbai = EmbeddingClient(provider: "ollama", model: "mxbai-embed-large", baseURL: "http://127.0.0.1:1",
                                    isRemote: false, contextTokens: 512)
        #expect(mxbai.windowBudget == EmbeddingWindows.budget(contextTokens: 512))
        #expect(mxbai.prepared("who lives at Pemberley?", .query) == search + "who lives at Pemberley?")
    }
}

/// The look-ups of a question go by key, never through every stored vector.
@Suite struct HybridRetrieverPlanTests {
    @Test func aPassagesWindowVectorsAreLookedUpByKey() throws {
        let db = try AppDatabase.inMemory()
        let plan = try db.reader.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + HybridRetriever.windowVectorsSQL, arguments: ["m", 3, 1])
                .map { $0["detail"] as String }
        }
        #expect(plan.count == 3, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH w USING PRIMARY KEY (digest=?") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH v USING PRIMARY KEY (model=? AND dim=? AND digest=?)") }, "\(plan)")
        #expect(!plan.contains { $0.contains("SEARCH v USING PRIMARY KEY (model=? AND dim=?)") }, "\(plan)")
    }
}

/// A client for questions does not ask the server for the model's context (it only decides how
/// passages are cut); the agent's client does.
@Suite struct EmbeddingClientLookupTests {
    static func replies() -> [ScriptedResponse] {
        [.json(200, #"{"models": [{"name": "all-minilm:latest"}]}"#),
         .json(200, #"{"model_info": {"bert.context_length": 512}, "parameters": ""}"#)]
    }

    @Test func aQuestionsClientMakesOneRequestTheAgentsTwo() async throws {
        var config = TKCore.Configuration.defaults
        config.embeddings.provider = "ollama"
        config.embeddings.baseUrl = "http://127.0.0.1:9"
        let questions = ScriptedTransport(Self.replies())
        guard case .client(let q) = await EmbeddingClientFactory.make(configuration: config, environment: [:], transport: questions,
                                                                     forQuestions: true) else {
            Issue.record("no client"); return
        }
        #expect(questions.requests.map(\.url) == ["http://127.0.0.1:9/api/tags"])
        #expect(q.model == "all-minilm:latest")
        let agent = ScriptedTransport(Self.replies())
        guard case .client(let a) = await EmbeddingClientFactory.make(configuration: config, environment: [:], transport: agent) else {
            Issue.record("no client"); return
        }
        #expect(agent.requests.map(\.url) == ["http://127.0.0.1:9/api/tags", "http://127.0.0.1:9/api/show"])
        #expect(a.contextTokens == 256)   // the smaller of the server's 512 and the table's 256
    }
}
