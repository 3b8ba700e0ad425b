import CVectorMath
import Foundation
import GRDB
import Testing
@testable import TKCore

/// Vectors in packs (`VectorPacks`): the packs plus the delta are always exactly `passage_vector`.
@Suite struct VectorPackTests {
    static func randomVector(_ dim: Int, _ g: inout SplitMix) -> QuantizedVector {
        QuantizedVector((0..<dim).map { _ in Float.random(in: -1...1, using: &g) })
    }

    /// Every vector of (model, dim) scored the old way: one row at a time from `passage_vector`.
    static func reference(_ db: AppDatabase, model: String, query: QuantizedVector) throws -> [Int64: Float] {
        try db.reader.read { db in
            var out: [Int64: Float] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT digest, scale, vector FROM passage_vector WHERE model = ? AND dim = ?",
                                        arguments: [model, query.values.count]) {
                let bytes = [UInt8](row[2] as Data)
                let stored = QuantizedVector(values: bytes.map { Int8(bitPattern: $0) }, scale: Float(row[1] as Double))
                out[row[0]] = stored.cosine(query)
            }
            return out
        }
    }

    static func packed(_ db: AppDatabase, model: String, query: QuantizedVector) throws -> [Int64: Float] {
        try db.reader.read { db in
            let (keys, scores, _) = try VectorPacks.scores(db, model: model, query: query)
            var out: [Int64: Float] = [:]
            for (k, s) in zip(keys, scores) {
                #expect(out[k] == nil, "digest \(k) scored twice")
                out[k] = s
            }
            return out
        }
    }

    static func count(_ db: AppDatabase, _ sql: String) throws -> Int {
        try db.reader.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    /// (count) of each pack of (model, dim).
    static func packSizes(_ db: AppDatabase, model: String, dim: Int) throws -> [Int] {
        try db.reader.read {
            try Int.fetchAll($0, sql: "SELECT count FROM vector_pack WHERE model = ? AND dim = ? ORDER BY id", arguments: [model, dim])
        }
    }

    @Test func encodingRoundTripsAndDamageIsRefused() {
        var g = SplitMix(seed: 1)
        var p = VectorPack(dim: 24)
        for i in 0..<50 {
            let v = Self.randomVector(24, &g)
            p.append(digest: Int64(i) * -7_919_000_000_000 + 3, scale: v.scale, vector: v.values)
        }
        p.append(digest: 99, scale: 1, vector: [Int8](repeating: 1, count: 23)) // wrong length: ignored
        #expect(p.count == 50)
        let (d, s, v) = p.encoded()
        #expect(d.count == 400 && s.count == 200 && v.count == 1200)
        #expect(VectorPack.decode(count: 50, dim: 24, digests: d, scales: s, vectors: v) == p)
        #expect(VectorPack.decode(count: 51, dim: 24, digests: d, scales: s, vectors: v) == nil)
        #expect(VectorPack.decode(count: 50, dim: 24, digests: d, scales: s, vectors: v.dropLast()) == nil)
        #expect(p.slice(10..<20).digests == Array(p.digests[10..<20]))
        #expect(p.slice(10..<20).vectors == Array(p.vectors[240..<480]))
    }

    @Test func packsPlusDeltaScoreExactlyLikeTheRowsThroughEveryChange() throws {
        let db = try AppDatabase.inMemory()
        var g = SplitMix(seed: 42)
        let dim = 32
        var keys = (0..<3000).map { _ in Int64(bitPattern: g.next()) }
        try db.storeVectors(model: "m", keys.map { ($0, Self.randomVector(dim, &g)) })
        let query = Self.randomVector(dim, &g)
        // All unpacked (a database from before packs reads like this): the old path exactly.
        #expect(try db.unpackedVectorCount(model: "m") == 3000)
        #expect(try Self.packed(db, model: "m", query: query) == Self.reference(db, model: "m", query: query))

        #expect(try db.packVectors(blockSize: 256) == 3000)
        #expect(try db.unpackedVectorCount(model: "m") == 0)
        #expect(try Self.packSizes(db, model: "m", dim: dim).reduce(0, +) == 3000)
        #expect(try Self.packed(db, model: "m", query: query) == Self.reference(db, model: "m", query: query))

        // New vectors, deleted ones, replaced ones: the delta.
        let added = (0..<100).map { _ in Int64(bitPattern: g.next()) }
        try db.storeVectors(model: "m", added.map { ($0, Self.randomVector(dim, &g)) })
        let deleted = Array(keys[0..<50])
        try db.writer.write { db in
            try db.execute(sql: "DELETE FROM passage_vector WHERE digest IN (\(deleted.map(String.init).joined(separator: ",")))")
        }
        let replaced = Array(keys[1000..<1020])
        try db.storeVectors(model: "m", replaced.map { ($0, Self.randomVector(dim, &g)) })
        keys = Array(keys[50...]) + added
        #expect(try db.unpackedVectorCount(model: "m") == 170)
        let mixed = try Self.packed(db, model: "m", query: query)
        #expect(try mixed == Self.reference(db, model: "m", query: query))
        #expect(Set(mixed.keys) == Set(keys))

        // Packed again: only the packs touched and the small ones are rewritten; at most one small.
        #expect(try db.packVectors(blockSize: 256) == 170)
        #expect(try db.unpackedVectorCount(model: "m") == 0)
        let sizes = try Self.packSizes(db, model: "m", dim: dim)
        #expect(sizes.reduce(0, +) == 3050)
        #expect(sizes.filter { $0 < 128 }.count <= 1)
        #expect(try Self.packed(db, model: "m", query: query) == Self.reference(db, model: "m", query: query))
        // Nothing to do: nothing changes.
        #expect(try db.packVectors(blockSize: 256) == 0)
        #expect(try Self.packSizes(db, model: "m", dim: dim) == sizes)
    }

    @Test func modelsAndDimensionsNeverShareAPack() throws {
        let db = try AppDatabase.inMemory()
        var g = SplitMix(seed: 7)
        let keys = (0..<300).map { _ in Int64(bitPattern: g.next()) }
        try db.storeVectors(model: "a", keys.map { ($0, Self.randomVector(16, &g)) })
        try db.storeVectors(model: "b", keys.map { ($0, Self.randomVector(16, &g)) })
        try db.storeVectors(model: "a", keys.prefix(40).map { ($0, Self.randomVector(8, &g)) })
        #expect(try db.packVectors(model: "a", blockSize: 64) == 340)
        #expect(try db.unpackedVectorCount(model: "b") == 300)
        #expect(try db.packVectors(blockSize: 64) == 300)
        #expect(try Self.packSizes(db, model: "a", dim: 16).reduce(0, +) == 300)
        #expect(try Self.packSizes(db, model: "a", dim: 8).reduce(0, +) == 40)
        #expect(try Self.packSizes(db, model: "b", dim: 16).reduce(0, +) == 300)
        for (model, dim) in [("a", 16), ("a", 8), ("b", 16)] {
            let q = Self.randomVector(dim, &g)
            let got = try Self.packed(db, model: model, query: q)
            #expect(got.count == (dim == 8 ? 40 : 300))
            #expect(try got == Self.reference(db, model: model, query: q))
        }
        // The last vector of model b goes: so do its packs.
        try db.writer.write { try $0.execute(sql: "DELETE FROM passage_vector WHERE model = 'b'") }
        #expect(try Self.packed(db, model: "b", query: Self.randomVector(16, &g)).isEmpty)
        try db.packVectors()
        #expect(try Self.count(db, "SELECT count(*) FROM vector_pack WHERE model = 'b'") == 0)
        #expect(try Self.count(db, "SELECT count(*) FROM vector_pack_delta") == 0)
        #expect(try Self.packSizes(db, model: "a", dim: 16).reduce(0, +) == 300)
    }

    @Test func aDamagedPackIsPassedOverThenRebuiltFromTheRows() throws {
        let db = try AppDatabase.inMemory()
        var g = SplitMix(seed: 9)
        let keys = (0..<200).map { _ in Int64(bitPattern: g.next()) }
        try db.storeVectors(model: "m", keys.map { ($0, Self.randomVector(16, &g)) })
        try db.packVectors(blockSize: 100)
        try db.writer.write { try $0.execute(sql: "UPDATE vector_pack SET vectors = x'00' WHERE id = (SELECT min(id) FROM vector_pack)") }
        let q = Self.randomVector(16, &g)
        #expect(try Self.packed(db, model: "m", query: q).count == 100)
        // One more vector: the next packing finds the damage and packs (model, dim) from the rows.
        try db.storeVectors(model: "m", [(Int64(bitPattern: g.next()), Self.randomVector(16, &g))])
        try db.packVectors(blockSize: 100)
        #expect(try Self.packSizes(db, model: "m", dim: 16).reduce(0, +) == 201)
        #expect(try Self.packed(db, model: "m", query: q) == Self.reference(db, model: "m", query: q))
    }

    @Test func anExistingDatabaseKeepsItsVectorsUnpackedUntilPacked() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v2-retrieval-contentless-passage-index")
        var g = SplitMix(seed: 3)
        let vectors = (0..<120).map { _ in (Int64(bitPattern: g.next()), Self.randomVector(16, &g)) }
        try queue.write { db in
            for (k, v) in vectors {
                try db.execute(sql: "INSERT INTO passage_vector(model, dim, digest, scale, vector) VALUES ('m', 16, ?, ?, ?)",
                               arguments: [k, Double(v.scale), Data(v.values.map { UInt8(bitPattern: $0) })])
            }
        }
        let db = try AppDatabase(queue)
        #expect(try db.unpackedVectorCount(model: "m") == 120)
        #expect(try Self.count(db, "SELECT count(*) FROM vector_pack") == 0)
        let q = Self.randomVector(16, &g)
        #expect(try Self.packed(db, model: "m", query: q) == Self.reference(db, model: "m", query: q))
        #expect(try db.packVectors() == 120)
        #expect(try Self.count(db, "SELECT count(*) FROM passage_vector") == 120)
        #expect(try Self.packed(db, model: "m", query: q) == Self.reference(db, model: "m", query: q))
    }

    /// The SIMD dot product against a plain loop, for lengths that are not a multiple of its
    /// width and the extreme values.
    @Test func dotProductsEqualAPlainLoop() {
        var g = SplitMix(seed: 11)
        for dim in [1, 7, 16, 37, 256, 300, 1024] {
            let q = (0..<dim).map { _ in Int8(truncatingIfNeeded: g.next()) }
            let count = 9
            var all = (0..<(dim * count)).map { _ in Int8(truncatingIfNeeded: g.next()) }
            all[0] = -128
            q.withUnsafeBufferPointer { qb in
                all.withUnsafeBufferPointer { ab in
                    for i in 0..<count {
                        let plain = (0..<dim).reduce(Int32(0)) { $0 + Int32(q[$1]) * Int32(all[i * dim + $1]) }
                        #expect(VectorMath.dot(qb, UnsafeBufferPointer(rebasing: ab[(i * dim)..<((i + 1) * dim)])) == plain,
                                "dim \(dim), vector \(i)")
                    }
                }
            }
        }
    }

    /// Every kernel this processor has (AVX2, SSE2, the portable loop) gives the same products as a
    /// plain Swift loop, row by row, for lengths around their widths and the extreme values; and
    /// `dots` leaves rows it is given no room for alone.
    @Test func everyKernelAgreesWithAPlainLoop() {
        var g = SplitMix(seed: 29)
        #expect(["avx2", "sse2", "portable"].contains(VectorMath.kernel))
        var ran: Set<String> = []
        for dim in [1, 15, 16, 17, 31, 32, 33, 48, 64, 255, 256, 384, 1024, 1536] {
            let count = 13
            var q = (0..<dim).map { _ in Int8(truncatingIfNeeded: g.next()) }
            var all = (0..<(dim * count)).map { _ in Int8(truncatingIfNeeded: g.next()) }
            // The extremes: every product at its largest, of either sign.
            for j in 0..<dim { all[j] = -128; all[dim + j] = 127 }
            q[0] = -128
            let plain = (0..<count).map { i in (0..<dim).reduce(Int32(0)) { $0 + Int32(q[$1]) * Int32(all[i * dim + $1]) } }
            for kernel in ["avx2", "sse2", "portable"] {
                var out = [Int32](repeating: 0, count: count)
                let available = q.withUnsafeBufferPointer { qb in
                    all.withUnsafeBufferPointer { ab in
                        out.withUnsafeMutableBufferPointer { ob in
                            tk_dot_i8_rows_with(kernel, qb.baseAddress!, ab.baseAddress!, count, dim, ob.baseAddress!)
                        }
                    }
                }
                guard available == 1 else { continue }
                ran.insert(kernel)
                #expect(out == plain, "kernel \(kernel), dim \(dim)")
            }
            var chosen = [Int32](repeating: 7, count: count + 1)
            q.withUnsafeBufferPointer { qb in
                all.withUnsafeBufferPointer { ab in
                    chosen.withUnsafeMutableBufferPointer { VectorMath.dots(qb, rows: ab, count: count, into: $0) }
                }
            }
            #expect(Array(chosen.prefix(count)) == plain, "dim \(dim)")
            #expect(chosen[count] == 7)
        }
        #expect(ran.contains("portable"))
        #if arch(x86_64)
        #expect(ran.contains("sse2"))
        #endif
        #expect(ran.contains(VectorMath.kernel))
    }

    @Test func equalScoresAreOrderedByKeyWhateverTheStorageOrder() {
        let scores: [Float] = [1, 2, 2, 0, 2]
        let keys: [Int64] = [5, 9, 3, 1, -4]
        #expect(VectorMath.bestFirst(scores, keys: keys, first: 3) == [4, 2, 1])
        #expect(VectorMath.bestFirst(scores, first: 3) == [1, 2, 4])
    }

    /// The retriever's vector list over real passages: identical before and after packing, and
    /// after edits (new, deleted and stale digests) whether packed or not.
    @Test func vectorCandidatesAreIdenticalPackedOrNot() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        var g = SplitMix(seed: 11)
        func document(_ n: Int, _ salt: String) -> String {
            (0..<40).map { "# Part \($0)\n\nnote \(salt) \(n) \($0) about the harbour\n" }.joined(separator: "\n")
        }
        try db.apply(projectID: pid, upserts: (0..<30).map { IndexedDocument.parsed("d\($0).md", document($0, "v1")) })
        func embedMissing() throws {
            let plan = EmbeddingWindows.plan(budget: 10_000)
            try db.storeWindows(plan: plan, try db.unplannedPassages(plan: plan, limit: 100_000).map { ($0.digest, [$0.digest]) })
            let missing = try db.passagesWithoutVectors(model: "m", plan: plan)
            try db.storeVectors(model: "m", missing.map { ($0.key, Self.randomVector(24, &g)) })
        }
        try embedMissing()
        let retriever = HybridRetriever(database: db)
        let scope = RetrievalScope(projectIDs: [pid])
        let queries = (0..<5).map { _ in Self.randomVector(24, &g) }
        func lists() throws -> [[Int64]] { try queries.map { try retriever.semantic($0, model: "m", scope: scope).map(\.id) } }
        let rows = try lists()
        #expect(rows.allSatisfy { $0.count == retriever.candidates })
        try db.packVectors(blockSize: 128)
        #expect(try lists() == rows)

        // Edits: five documents rewritten (their old digests stay in the packs until pruned: stale),
        // two deleted, one added; then embedded, pruned, packed.
        try db.apply(projectID: pid, upserts: (0..<5).map { IndexedDocument.parsed("d\($0).md", document($0, "v2")) }
                     + [IndexedDocument.parsed("new.md", document(99, "v1"))],
                     deletions: [PathBytes("d28.md"), PathBytes("d29.md")])
        try embedMissing()
        let live = try db.reader.read { try Set(Int64.fetchAll($0, sql: "SELECT id FROM passage")) }
        let unpacked = try lists()
        #expect(unpacked.allSatisfy { $0.count == retriever.candidates && $0.allSatisfy(live.contains) })
        // The same lists as a database read row by row (every vector in the delta).
        try db.writer.write { db in
            try db.execute(sql: "DELETE FROM vector_pack")
            try db.execute(sql: "INSERT OR IGNORE INTO vector_pack_delta SELECT model, dim, digest FROM passage_vector")
        }
        #expect(try lists() == unpacked)
        try db.packVectors(blockSize: 128)
        #expect(try lists() == unpacked)
        try db.pruneVectors()
        #expect(try lists() == unpacked)
        try db.packVectors(blockSize: 128)
        #expect(try lists() == unpacked)
        #expect(try Self.count(db, "SELECT sum(count) FROM vector_pack") == Self.count(db, "SELECT count(*) FROM passage_vector"))
    }
}
