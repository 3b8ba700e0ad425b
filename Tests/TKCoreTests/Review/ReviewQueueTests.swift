import Foundation
import Logging
import Synchronization
import Testing
@testable import TKCore

/// A clock the tests move by hand.
final class FakeClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_795_000_000))
    var now: Now { Now { [self] in self.current.withLock { $0 } } }
    var date: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

final class Recorder: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ s: String) { state.withLock { $0.append(s) } }
    var items: [String] { state.withLock { $0 } }
}

/// A provider that holds each call until released, and can run code while a call is in flight.
final class GatedProvider: LLMProvider {
    let name = "scripted"
    let model = "gated-model"
    private let state = Mutex<(open: Bool, inFlight: Int, calls: Int)>((false, 0, 0))
    let reply: String
    let during: @Sendable () -> Void
    init(reply: String, during: @escaping @Sendable () -> Void = {}) { self.reply = reply; self.during = during }
    var inFlight: Int { state.withLock { $0.inFlight } }
    var calls: Int { state.withLock { $0.calls } }
    func open() { state.withLock { $0.open = true } }
    func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        state.withLock { $0.inFlight += 1; $0.calls += 1 }
        during()
        while !state.withLock({ $0.open }) {
            if Task.isCancelled {
                state.withLock { $0.inFlight -= 1 }
                throw .cancelled
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        state.withLock { $0.inFlight -= 1 }
        return LLMResponse(provider: name, model: model, text: reply, usage: LLMUsage(inputTokens: 100, outputTokens: 20),
                           costUsd: 0.01)
    }
}

/// A temporary project with a review queue wired to a scripted provider and a fake clock.
struct QueueFixture {
    let root: PathBytes
    let db: AppDatabase
    let clock = FakeClock()
    let provider: any LLMProvider
    let config: Configuration
    let notified: Recorder
    let queue: ReviewQueue
    let env: ReviewEnvironment

    init(provider: any LLMProvider = ScriptedProvider(), configure: (inout Configuration) -> Void = { _ in },
         isAlive: @escaping @Sendable (Int32) -> Bool = { _ in true }) throws {
        let dir = TestScratch.url("tk-review")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        root = PathBytes(dir.path)
        db = try AppDatabase.inMemory()
        var c = Configuration.defaults
        c.review.quietSeconds = 60
        c.review.minChangedWords = 10
        c.review.maxConcurrent = 2
        c.review.dailyBudgetUsd = 1
        configure(&c)
        config = c
        self.provider = provider
        let box = Recorder()
        notified = box
        let paths = Paths(userConfig: root.appending("cfg.json"), configDirectory: root.appending("cfg"),
                          dataDirectory: root.appending("data"), runtimeDirectory: root.appending("run"))
        let cfg = c
        env = ReviewEnvironment(
            paths: paths, environment: [:], database: db, logger: Logger(label: "test"), catalog: .builtIn,
            sidecars: SidecarStore(), now: clock.now, pid: 4242, loadConfig: { _ in cfg },
            makeProvider: { (_: Configuration) async throws(LLMProviderError) -> any LLMProvider in provider },
            providerStatus: { _ in ProviderStatus(name: provider.name, model: provider.model, available: true, reason: nil) },
            notify: { _, title, body, _ in box.append("\(title): \(body)") },
            isAlive: isAlive)
        queue = ReviewQueue(env: env)
    }

    /// Writes a document and tells the queue it changed.
    func write(_ rel: String, _ text: String, notify: Bool = true, previous: String? = "0") async throws {
        let path = root.appending(rel)
        try FileSystem.writeAtomically(Array(text.utf8), to: path)
        if notify {
            await queue.documentsChanged(root: root, changes: [
                .updated(relative: PathBytes(rel), sha256: SHA256Digest.hex(Array(text.utf8)), previousSha256: previous),
            ], config: config)
        }
    }

    func sidecar(_ rel: String) -> ReviewSidecar? {
        if case .ok(let s, _) = SidecarStore().read(project: root, document: PathBytes(rel)) { return s }
        return nil
    }

    func rounds(_ rel: String) throws -> [ReviewRoundRecord] {
        try ReviewStore(database: db).rounds(project: root, document: PathBytes(rel))
    }

    func tickAndDrain() async {
        await queue.tick()
        await queue.drain()
    }
}

func words(_ n: Int, prefix: String = "word") -> String {
    (0..<n).map { "\(prefix)\($0)" }.joined(separator: " ")
}

let editorReply = #"{"suggestions": [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat", "suggested_text": "The cat lounged", "reasoning": "livelier", "priority": 1, "confidence": 0.9}]}"#

@Suite struct ReviewPolicyTests {
    @Test func changedWordsCountsReplacementsNotJustLength() {
        let a = ReviewPolicy.wordBag(MarkdownDocument(bytes: Array("one two three four".utf8), fileName: "a.md"))
        let b = ReviewPolicy.wordBag(MarkdownDocument(bytes: Array("one two five six".utf8), fileName: "a.md"))
        #expect(a.count == 4)
        #expect(ReviewPolicy.changedWords(old: a, new: b) == 2)
        #expect(ReviewPolicy.changedWords(old: [], new: a) == 4)
        #expect(ReviewPolicy.changedWords(old: a, new: a) == 0)
        let c = ReviewPolicy.wordBag(MarkdownDocument(bytes: Array("One TWO three four\n\n```\ncode words here\n```\n".utf8), fileName: "a.md"))
        #expect(ReviewPolicy.changedWords(old: a, new: c) == 0)
        #expect(ReviewPolicy.decode(ReviewPolicy.encode(a)) == a)
    }

    /// A failed count of the rounds never shows an empty queue: the last counts read stay, with a
    /// problem saying why (a harness waiting for "nothing queued" stopped an agent with rounds waiting).
    @Test func aQueueThatCannotBeCountedIsNotShownEmpty() throws {
        let db = try AppDatabase.inMemory()
        let store = ReviewStore(database: db), ledger = UsageLedger(database: db)
        var status = StatusSnapshot(running: true, pid: 1, uptimeS: 0, startedAt: nil, updatedAt: nil, projects: [],
                                    index: .init(documents: 0, pending: 0))
        let read = ReviewQueue.contribute(store: store, ledger: ledger, config: .defaults, now: Date(), to: &status)
        #expect(read == StatusSnapshot.Queue())
        #expect(status.problems.isEmpty)
        try db.writer.write { try $0.execute(sql: "DROP TABLE review_round") }
        var later = StatusSnapshot(running: true, pid: 1, uptimeS: 0, startedAt: nil, updatedAt: nil, projects: [],
                                   index: .init(documents: 0, pending: 0))
        let last = StatusSnapshot.Queue(queued: 3, running: 1)
        let shown = ReviewQueue.contribute(store: store, ledger: ledger, config: .defaults, now: Date(), lastKnown: last, to: &later)
        #expect(shown == last)
        #expect(later.queue == last)
        #expect(later.problems.contains { $0.hasPrefix("review queue: the rounds could not be counted") })
    }

    @Test func budget() {
        #expect(ReviewPolicy.budgetReason(spentToday: 0.5, estimate: nil, budget: 1, local: false) == nil)
        #expect(ReviewPolicy.budgetReason(spentToday: 1.0, estimate: nil, budget: 1, local: false)?.contains("daily budget reached") == true)
        #expect(ReviewPolicy.budgetReason(spentToday: 0.9, estimate: 0.2, budget: 1, local: false)?.contains("would be exceeded") == true)
        #expect(ReviewPolicy.budgetReason(spentToday: 5, estimate: 1, budget: 1, local: true) == nil)
        #expect(ReviewPolicy.budgetReason(spentToday: 0, estimate: nil, budget: 0, local: false) != nil)
    }

    @Test func localProviders() {
        var c = Configuration.defaults
        #expect(ReviewPolicy.isLocal(providerName: "ollama", config: c))
        #expect(!ReviewPolicy.isLocal(providerName: "openai", config: c))
        #expect(!ReviewPolicy.isLocal(providerName: "anthropic", config: c))
        c.providers.openai.baseUrl = "http://localhost:8080/v1"
        #expect(ReviewPolicy.isLocal(providerName: "openai", config: c))
        c.providers.openai.baseUrl = "http://127.0.0.1:1234/v1"
        #expect(ReviewPolicy.isLocal(providerName: "openai", config: c))
    }

    @Test func exclusion() {
        var c = Configuration.defaults
        let off = FrontMatter.parse(Array("---\ntk:\n  review: false\n---\nText\n".utf8)).0
        #expect(ReviewPolicy.exclusion(frontMatter: off, relative: PathBytes("a.md"), config: c)?.contains("review: false") == true)
        c.review.exclude = ["private/", "*.secret.md"]
        let plain = FrontMatter()
        #expect(ReviewPolicy.exclusion(frontMatter: plain, relative: PathBytes("private/x.md"), config: c) != nil)
        #expect(ReviewPolicy.exclusion(frontMatter: plain, relative: PathBytes("notes/a.secret.md"), config: c) != nil)
        #expect(ReviewPolicy.exclusion(frontMatter: plain, relative: PathBytes("notes/a.md"), config: c) == nil)
    }
}

@Suite struct ReviewQueueTests {
    @Test func automaticRoundWaitsForQuietThenRuns() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat on the mat. " + words(20) + "\n")
        await f.queue.tick()
        #expect(try f.rounds("a.md").isEmpty)
        f.clock.advance(30)
        await f.queue.tick()
        #expect(try f.rounds("a.md").isEmpty)
        f.clock.advance(31)
        await f.tickAndDrain()
        let rounds = try f.rounds("a.md")
        #expect(rounds.map(\.status) == [.done])
        #expect(rounds.first?.manual == false)
        let s = try #require(f.sidecar("a.md"))
        #expect(s.rounds.map(\.status) == [.done])
        #expect(s.rounds.first?.usage?.inputTokens == 10)
        #expect(s.suggestions.count == 1)
        #expect(s.suggestions.first?.start == 0)
        #expect(s.journey.stage == .revise)
        #expect(s.journey.revisionCycle == 1)
        #expect(f.notified.items == ["a.md: 1 suggestion. Top (editor): “The cat sat” → “The cat lounged”"])
        #expect(provider.requests.count == 1)
        #expect(provider.requests.first?.jsonSchema != nil)
    }

    @Test func savesDuringTheQuietPeriodPostponeTheRound() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat. " + words(20) + "\n")
        f.clock.advance(50)
        try await f.write("a.md", "The cat sat. " + words(25) + "\n")
        f.clock.advance(50)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").isEmpty)
        f.clock.advance(11)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").count == 1)
        #expect(provider.requests.count == 1)
    }

    @Test func fewChangedWordsStartNoAutomaticRound() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        // A first round needs at least min_changed_words words.
        try await f.write("short.md", "Only five words right here.\n")
        f.clock.advance(61)
        await f.tickAndDrain()
        #expect(try f.rounds("short.md").isEmpty)
        // A reviewed document needs min_changed_words changed words.
        try await f.write("a.md", "The cat sat. " + words(20) + "\n")
        f.clock.advance(61)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").count == 1)
        try await f.write("a.md", "The cat sat. " + words(20) + " extra words\n")
        f.clock.advance(61)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").count == 1)
        try await f.write("a.md", "The cat sat. " + words(20) + " " + words(12, prefix: "new") + "\n")
        provider.enqueue(editorReply)
        f.clock.advance(61)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").count == 2)
    }

    @Test func aFirstSightingIsNoEdit() async throws {
        let f = try QueueFixture()
        try await f.write("a.md", "The cat sat. " + words(40) + "\n", previous: nil)
        f.clock.advance(120)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").isEmpty)
        // Nothing is kept of a first sighting (a first scan of thousands of documents): the file's
        // modification time stands for its last change.
        #expect(await f.queue.lastChange.isEmpty)
    }

    @Test func finalDocumentsGetNoAutomaticRound() async throws {
        let f = try QueueFixture()
        try await f.write("a.md", "The cat sat. " + words(40) + "\n")
        try SidecarStore().write(project: f.root, document: PathBytes("a.md"), ReviewSidecar(
            document: "a.md", sha256: "", updatedAt: "", words: 40, journey: JourneyState(stage: .final)))
        f.clock.advance(120)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").isEmpty)
        // A manual request still runs, and brings the document back to revise.
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        #expect(f.sidecar("a.md")?.journey.stage == .revise)
    }

    @Test func autoOffStartsNothing() async throws {
        let f = try QueueFixture { $0.review.auto = false }
        try await f.write("a.md", "The cat sat. " + words(40) + "\n")
        f.clock.advance(120)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").isEmpty)
    }

    @Test func requestsCoalesceIntoOneRound() async throws {
        let f = try QueueFixture()
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        let a = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: false, advisors: nil)
        let b = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true,
                                            advisors: ["editor"])
        #expect(a.id == b.id)
        let rounds = try f.rounds("a.md")
        #expect(rounds.count == 1)
        #expect(rounds.first?.skipQuiet == true)
        #expect(rounds.first?.advisors == ["editor"])
        #expect(f.sidecar("a.md")?.rounds.map(\.status) == [.queued])
    }

    @Test func sameContentAndPromptIsNeverSentTwice() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        let rounds = try f.rounds("a.md")
        #expect(rounds.map(\.status) == [.done, .done])
        #expect(rounds.last?.reason?.contains("no call made") == true)
        #expect(provider.requests.count == 1)
        #expect(f.sidecar("a.md")?.journey.revisionCycle == 1)
    }

    @Test func budgetReachedMakesTheRoundWait() async throws {
        let provider = ScriptedProvider(name: "anthropic", model: "claude-x")
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try UsageLedger(database: f.db).record(provider: "anthropic", model: "claude-x", usage: LLMUsage(inputTokens: 1_000_000),
                                               costUsd: 1.5, kind: .cli, at: f.clock.date)
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        let rounds = try f.rounds("a.md")
        #expect(rounds.map(\.status) == [.waiting])
        #expect(rounds.first?.reason?.contains("daily budget reached") == true)
        #expect(provider.requests.isEmpty)
        let s = try #require(f.sidecar("a.md"))
        #expect(s.rounds.first?.status == .waiting)
        #expect(s.rounds.first?.reason?.contains("budget") == true)
        var status = StatusSnapshot(running: true, pid: 1, uptimeS: 0, startedAt: nil, updatedAt: nil, projects: [],
                                    index: .init(documents: 0, pending: 0))
        await f.queue.contribute(to: &status)
        #expect(status.queue.waiting == 1)
        #expect(status.usage.todayUsd == 1.5)
        #expect(status.problems.contains { $0.contains("budget") })
        // The next day it runs.
        f.clock.advance(86_400)
        await f.queue.wake()
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").map(\.status) == [.done])
    }

    @Test func estimateAboveTheBudgetWaits() async throws {
        let provider = ScriptedProvider(name: "anthropic", model: "claude-x")
        let f = try QueueFixture(provider: provider)
        // A past call priced this model at $0.01 a prompt token: a round of this size would cost far more than $1.
        try UsageLedger(database: f.db).record(provider: "anthropic", model: "claude-x", usage: LLMUsage(inputTokens: 1),
                                               costUsd: 0.01, kind: .round, at: f.clock.date.addingTimeInterval(-86_400 * 2))
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        let r = try #require(try f.rounds("a.md").first)
        #expect(r.status == .waiting)
        #expect(r.reason?.contains("would be exceeded") == true)
    }

    @Test func thePriceTableEstimatesARound() {
        #expect(ReviewEnvironment.tablePrice("anthropic", "claude-sonnet-4-6", 1_000_000, 0) == 3)
        #expect(ReviewEnvironment.tablePrice("openai", "my-local-model", 1000, 1000) == nil)
    }

    @Test func localProvidersIgnoreTheBudget() async throws {
        let provider = ScriptedProvider(name: "ollama", model: "llama")
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try UsageLedger(database: f.db).record(provider: "anthropic", model: "x", usage: LLMUsage(), costUsd: 5, kind: .cli,
                                               at: f.clock.date)
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").map(\.status) == [.done])
    }

    @Test func maxConcurrentLimitsRunningRounds() async throws {
        let provider = GatedProvider(reply: editorReply)
        let f = try QueueFixture(provider: provider) { $0.review.maxConcurrent = 1 }
        for name in ["a.md", "b.md", "c.md"] {
            try await f.write(name, "The cat sat. " + words(20, prefix: name.prefix(1) + "w") + "\n", notify: false)
            _ = try f.queue.executor.submit(project: f.root, document: PathBytes(name), manual: true, skipQuiet: true, advisors: nil)
        }
        await f.queue.tick()
        for _ in 0..<2000 where provider.inFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await f.queue.tick()
        #expect(await f.queue.runningCount == 1)
        #expect(provider.inFlight == 1)
        provider.open()
        for _ in 0..<3 { await f.tickAndDrain() }
        #expect(provider.calls == 3)
        for name in ["a.md", "b.md", "c.md"] { #expect(try f.rounds(name).map(\.status) == [.done]) }
    }

    @Test func roundsLeftRunningByADeadProcessRunAgain() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider, isAlive: { $0 != 999_999 })
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        let store = ReviewStore(database: f.db)
        let r = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: false, advisors: nil)
        _ = try store.claim(id: r.id, pid: 999_999)
        #expect(try store.round(id: r.id)?.status == .running)
        await f.tickAndDrain()
        let after = try #require(try store.round(id: r.id))
        #expect(after.status == .done)
        #expect(provider.requests.count == 1)
    }

    @Test func aRoundCancelledAtShutdownIsQueuedAgain() async throws {
        let provider = GatedProvider(reply: editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        let store = ReviewStore(database: f.db)
        let r = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: false, advisors: nil)
        let claimed = try #require(try store.claim(id: r.id, pid: 4242))
        let executor = f.queue.executor
        let task = Task { await executor.run(claimed) }
        for _ in 0..<4000 where provider.inFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(f.sidecar("a.md")?.rounds.first?.status == .running)
        task.cancel()
        let ended = await task.value
        #expect(ended.status == .queued)
        #expect(ended.skipQuiet)
        #expect(try store.round(id: r.id)?.status == .queued)
        #expect(f.sidecar("a.md")?.rounds.first?.status == .queued)
    }

    @Test func roundsOfALiveProcessAreLeftAlone() async throws {
        let f = try QueueFixture()
        try await f.write("a.md", "The cat sat. " + words(20) + "\n", notify: false)
        let store = ReviewStore(database: f.db)
        let r = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        _ = try store.claim(id: r.id, pid: 1234)
        await f.tickAndDrain()
        #expect(try store.round(id: r.id)?.status == .running)
    }

    @Test func unreadablePanelReplyFallsBackToOneCallPerAdvisor() async throws {
        let provider = ScriptedProvider()
        provider.enqueue("I am sorry, I cannot produce JSON today.")
        provider.enqueue(#"{"suggestions": [{"advisor_id": "creative_writer", "type": "improve", "original_text": "The cat sat", "suggested_text": "The cat sprawled", "reasoning": "r", "priority": 2, "confidence": 0.7}]}"#)
        provider.enqueue("```json\n" + #"{"suggestions": [{"advisor_id": "editor", "type": "fix", "original_text": "on teh mat", "suggested_text": "on the mat", "reasoning": "typo", "priority": 1, "confidence": 0.9}]}"# + "\n```")
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "---\ntk:\n  advisors: [creative_writer, editor]\n---\nThe cat sat on teh mat.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        #expect(provider.requests.count == 3)
        let s = try #require(f.sidecar("a.md"))
        #expect(Set(s.suggestions.map(\.advisorId)) == ["creative_writer", "editor"])
        #expect(s.rounds.first?.usage?.inputTokens == 30)
    }

    @Test func suggestionsAnchorToTheTextAsItIsWhenTheReplyArrives() async throws {
        let target = Mutex<String?>(nil)
        let provider = GatedProvider(reply: editorReply) {
            if let path = target.withLock({ $0 }) {
                try? FileSystem.writeAtomically(Array("# A new heading\n\nSome new text first. The cat sat on the mat.\n".utf8),
                                                to: PathBytes(path))
            }
        }
        provider.open()
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat on the mat.\n", notify: false)
        target.withLock { $0 = f.root.appending("a.md").display }
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        let s = try #require(f.sidecar("a.md"))
        let sug = try #require(s.suggestions.first)
        #expect(sug.line == 3)
        #expect(sug.start == 38)
        #expect(sug.originalText == "The cat sat")
    }

    @Test func excludedDocumentsAreNeverSent() async throws {
        let provider = ScriptedProvider()
        let f = try QueueFixture(provider: provider) { $0.review.exclude = ["private/**"] }
        try await f.write("a.md", "---\ntk:\n  review: false\n---\nThe cat sat.\n", notify: false)
        try FileSystem.makeDirectories(f.root.appending("private"))
        try await f.write("private/b.md", "The cat sat.\n", notify: false)
        for name in ["a.md", "private/b.md"] {
            _ = try f.queue.executor.submit(project: f.root, document: PathBytes(name), manual: true, skipQuiet: true, advisors: nil)
        }
        await f.tickAndDrain()
        #expect(provider.requests.isEmpty)
        #expect(try f.rounds("a.md").first?.reason?.contains("review: false") == true)
        #expect(try f.rounds("private/b.md").first?.reason?.contains("review.exclude") == true)
        #expect(f.sidecar("a.md")?.rounds.first?.status == .failed)
    }

    @Test func badKeyFailsWithTheProvidersReason() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(error: .authentication("the Anthropic API key was rejected (401): check ANTHROPIC_API_KEY"))
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        let r = try #require(try f.rounds("a.md").first)
        #expect(r.status == .failed)
        #expect(r.reason?.contains("rejected") == true)
        #expect(f.sidecar("a.md")?.rounds.first?.error?.contains("rejected") == true)
    }

    @Test func rateLimitedRoundWaitsAndRetries() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(error: .rateLimited("rate limited by Anthropic (429)", retryAfter: 30))
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").first?.status == .waiting)
        #expect(try f.rounds("a.md").first?.reason?.contains("tries again at") == true)
        f.clock.advance(10)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").first?.status == .waiting)
        f.clock.advance(25)
        await f.tickAndDrain()
        #expect(try f.rounds("a.md").first?.status == .done)
    }

    @Test func truncatedReplyKeepsCompleteSuggestions() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(#"{"suggestions": [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat", "suggested_text": "The cat lounged", "reasoning": "r", "priority": 1, "confidence": 0.9}, {"advisor_id": "editor", "type": "fix", "original_text": "on teh"#,
                         stopReason: .maxTokens)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat on teh mat.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: ["editor"])
        await f.tickAndDrain()
        let s = try #require(f.sidecar("a.md"))
        #expect(s.rounds.first?.status == .done)
        #expect(s.rounds.first?.truncated == true)
        #expect(s.suggestions.count == 1)
    }
}

@Suite struct ReviewStoreTests {
    @Test func failedCountsOnlyDocumentsWhoseLatestRoundFailed() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(error: .authentication("bad key"))
        provider.enqueue(error: .authentication("bad key"))
        provider.enqueue(editorReply)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat.\n", notify: false)
        try await f.write("b.md", "The cat sat.\n", notify: false)
        for name in ["a.md", "b.md"] {
            _ = try f.queue.executor.submit(project: f.root, document: PathBytes(name), manual: true, skipQuiet: true, advisors: nil)
        }
        await f.tickAndDrain()
        let store = ReviewStore(database: f.db)
        #expect(try store.counts(now: f.clock.date).failed == 2)
        try await f.write("a.md", "The cat sat down.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true, advisors: nil)
        await f.tickAndDrain()
        #expect(try store.counts(now: f.clock.date) == StatusSnapshot.Queue(queued: 0, waiting: 0, running: 0, failed: 1))
    }

    @Test func renamedDocumentsKeepTheirRoundsAndBaseline() async throws {
        let f = try QueueFixture()
        let store = ReviewStore(database: f.db)
        try await f.write("a.md", "The cat sat.\n", notify: false)
        _ = try store.enqueue(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: false, advisors: nil)
        try store.setBaseline(project: f.root, document: PathBytes("a.md"), contentSha: "x", words: [1, 2, 3])
        try f.db.renameDocuments(project: f.root, [(from: PathBytes("a.md"), to: PathBytes("b.md"))])
        #expect(try store.rounds(project: f.root, document: PathBytes("b.md")).count == 1)
        #expect(try store.baseline(project: f.root, document: PathBytes("b.md")) == [1, 2, 3])
        #expect(try store.baseline(project: f.root, document: PathBytes("a.md")).isEmpty)
    }

    @Test func aNewRoundSupersedesOverlappingPendingSuggestions() async throws {
        let provider = ScriptedProvider()
        provider.enqueue(editorReply)
        provider.enqueue(#"{"suggestions": [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat on", "suggested_text": "The cat perched on", "reasoning": "r", "priority": 1, "confidence": 0.9}, {"advisor_id": "editor", "type": "fix", "original_text": "the mat", "suggested_text": "the rug", "reasoning": "r", "priority": 2, "confidence": 0.9}]}"#)
        let f = try QueueFixture(provider: provider)
        try await f.write("a.md", "The cat sat on the mat.\n", notify: false)
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true,
                                        advisors: ["editor"])
        await f.tickAndDrain()
        _ = try f.queue.executor.submit(project: f.root, document: PathBytes("a.md"), manual: true, skipQuiet: true,
                                        advisors: ["editor", "creative_writer"])
        await f.tickAndDrain()
        let s = try #require(f.sidecar("a.md"))
        #expect(s.rounds.count == 2)
        #expect(s.suggestions.map(\.suggestedText).sorted() == ["The cat perched on", "the rug"])
        #expect(s.journey.revisionCycle == 2)
        #expect(s.rounds.map(\.cycle) == [1, 2])
    }
}

@Suite struct UsageLedgerTests {
    @Test func totalsAndReport() throws {
        let db = try AppDatabase.inMemory()
        let ledger = UsageLedger(database: db)
        let day1 = Date(timeIntervalSince1970: 1_795_000_000)
        try ledger.record(provider: "anthropic", model: "a", usage: LLMUsage(inputTokens: 100, outputTokens: 10), costUsd: 0.5,
                          kind: .round, at: day1)
        try ledger.record(provider: "ollama", model: "l", usage: LLMUsage(inputTokens: 50, outputTokens: 5), costUsd: 0,
                          kind: .cli, local: true, at: day1)
        try ledger.record(provider: "anthropic", model: "a", usage: LLMUsage(inputTokens: 10, outputTokens: 1), costUsd: 0.25,
                          kind: .cli, at: day1.addingTimeInterval(-86_400))
        let t = try ledger.totals(now: day1)
        #expect(t.today.calls == 2)
        #expect(t.today.costUsd == 0.5)
        #expect(t.today.inputTokens == 150)
        #expect(try ledger.spentToday(now: day1) == 0.5)
        let r = try ledger.report()
        #expect(r.days.map(\.key) == [UsageLedger.day(day1), UsageLedger.day(day1.addingTimeInterval(-86_400))])
        #expect(r.models.first?.key == "a")
        #expect(r.models.first?.totals.costUsd == 0.75)
    }
}

@Suite struct NotifierTests {
    @Test func messageNamesTheTopSuggestion() {
        let s = [
            Suggestion(id: "1", round: "r", advisorId: "editor", type: .fix, originalText: "teh", suggestedText: "the",
                       reasoning: "", priority: 2, confidence: 0.5),
            Suggestion(id: "2", round: "r", advisorId: "creative_writer", type: .improve, originalText: "sat",
                       suggestedText: "lounged", reasoning: "", priority: 1, confidence: 0.5),
        ]
        let m = Notifier.roundMessage(document: "notes/a.md", suggestions: s)
        #expect(m.title == "notes/a.md")
        #expect(m.body == "2 suggestions. Top (creative_writer): “sat” → “lounged”")
    }

    @Test func noSessionBusSendsNothing() async {
        let n = Notifier(settings: .init(enabled: true, command: "notify-send"), environment: ["XDG_RUNTIME_DIR": "/nonexistent"],
                         logger: Logger(label: "t"))
        #expect(Notifier.sessionBus(environment: ["XDG_RUNTIME_DIR": "/nonexistent"]) == nil)
        #expect(await n.notify(title: "t", body: "b") == false)
    }

    @Test func notifySendGetsTheAppNameACustomCommandGetsItsOwnArguments() {
        let bus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]
        #expect(Notifier.invocation(command: "notify-send -u low", title: "T", body: "B", document: "/p/a.md", environment: bus)?
            .arguments == ["notify-send", "-u", "low", "-a", "tk-agent", "T", "B"])
        #expect(Notifier.invocation(command: "/usr/bin/notify-send", title: "T", body: "B", document: "", environment: [:]) == nil)
        let custom = Notifier.invocation(command: "my-push --topic x", title: "T", body: "B", document: "/p/a.md", environment: [:])
        #expect(custom?.arguments == ["my-push", "--topic", "x", "T", "B"])
        #expect(custom?.environment["TK_TITLE"] == "T" && custom?.environment["TK_BODY"] == "B"
            && custom?.environment["TK_DOCUMENT"] == "/p/a.md")
        #expect(custom?.environment["DBUS_SESSION_BUS_ADDRESS"] == nil)
    }

    @Test func runsACustomCommandWithoutABus() async throws {
        let dir = TestScratch.url("tk-notify")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("args").path
        let script = dir.appendingPathComponent("notify.sh").path
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" \"$TK_DOCUMENT\" > \(out)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let n = Notifier(settings: .init(enabled: true, command: script),
                         environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": "/nonexistent"], logger: Logger(label: "t"))
        #expect(await n.notify(title: "doc.md", body: "3 suggestions", document: "/p/doc.md") == true)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "doc.md\n3 suggestions\n/p/doc.md\n")
    }

    @Test func aHangingCommandTimesOut() async throws {
        // A custom command gets the title and body as arguments: `sleep 120 1`.
        let n = Notifier(settings: .init(enabled: true, command: "sleep"),
                         environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x", "PATH": "/usr/bin:/bin"],
                         logger: Logger(label: "t"), timeout: .milliseconds(300))
        let start = Date()
        #expect(await n.notify(title: "120", body: "1") == false)
        // Far below the command's 121 s (a generous bound: on 2 cores a busy test pool has delayed the
        // timer by 15 s and more).
        #expect(Date().timeIntervalSince(start) < 60)
    }
}
