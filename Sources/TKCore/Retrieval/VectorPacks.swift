import Foundation
import GRDB

/// Embeddings of one (model, dimension) in packs of a few thousand, one row each (`vector_pack`).
///
/// Reading 87,419 vectors of the large corpus one row at a time from `passage_vector` (page copies
/// and per-row work) was most of a hybrid question's time; the same vectors in 22 rows are read in
/// a few milliseconds. `passage_vector` stays the source of truth: the digests written or deleted
/// there since the last packing are listed in `vector_pack_delta` (by trigger) and read from
/// `passage_vector` as before; their packed entries, if any, are passed over. Packing folds the
/// list into the packs (the embedding worker after it stores vectors; a question that finds many).
public struct VectorPack: Sendable, Equatable {
    public let dim: Int
    public private(set) var digests: [Int64] = []
    public private(set) var scales: [Float] = []
    /// `count × dim` int8 values, vector after vector.
    public private(set) var vectors: [Int8] = []

    public init(dim: Int) { self.dim = dim }

    public var count: Int { digests.count }

    /// Adds a vector (ignored when its length is not `dim`).
    public mutating func append(digest: Int64, scale: Float, vector: UnsafeRawBufferPointer) {
        guard vector.count == dim else { return }
        digests.append(digest)
        scales.append(scale)
        vectors.append(contentsOf: vector.bindMemory(to: Int8.self))
    }

    public mutating func append(digest: Int64, scale: Float, vector: [Int8]) {
        vector.withUnsafeBytes { append(digest: digest, scale: scale, vector: $0) }
    }

    /// Adds entry `i` of another pack of the same dimension.
    public mutating func append(_ other: VectorPack, at i: Int) {
        guard other.dim == dim, i >= 0, i < other.count else { return }
        digests.append(other.digests[i])
        scales.append(other.scales[i])
        vectors.append(contentsOf: other.vectors[(i * dim)..<((i + 1) * dim)])
    }

    /// Entries `range` as a pack of their own.
    public func slice(_ range: Range<Int>) -> VectorPack {
        var p = VectorPack(dim: dim)
        p.digests = Array(digests[range])
        p.scales = Array(scales[range])
        p.vectors = Array(vectors[(range.lowerBound * dim)..<(range.upperBound * dim)])
        return p
    }

    /// The three blobs as stored: digests as little-endian int64, scales as little-endian float32
    /// bit patterns, the vectors as they are.
    public func encoded() -> (digests: Data, scales: Data, vectors: Data) {
        var d = Data(capacity: count * 8)
        for x in digests { withUnsafeBytes(of: UInt64(bitPattern: x).littleEndian) { d.append(contentsOf: $0) } }
        var s = Data(capacity: count * 4)
        for x in scales { withUnsafeBytes(of: x.bitPattern.littleEndian) { s.append(contentsOf: $0) } }
        let v = vectors.withUnsafeBytes { Data($0) }
        return (d, s, v)
    }

    /// A stored pack, or nil when its blobs do not agree with `count` and `dim` (a damaged row).
    public static func decode(count: Int, dim: Int, digests: Data, scales: Data, vectors: Data) -> VectorPack? {
        guard count >= 0, dim > 0, digests.count == count * 8, scales.count == count * 4, vectors.count == count * dim else {
            return nil
        }
        var p = VectorPack(dim: dim)
        p.digests = digests.withUnsafeBytes { raw in
            (0..<count).map { Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) }
        }
        p.scales = scales.withUnsafeBytes { raw in
            (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        p.vectors = vectors.withUnsafeBytes { Array($0.bindMemory(to: Int8.self)) }
        return p
    }
}

/// A stored pack read in place (no copy), for scoring.
struct PackView {
    let count: Int
    let dim: Int
    let digests: UnsafeRawBufferPointer
    let scales: UnsafeRawBufferPointer
    let vectors: UnsafeRawBufferPointer

    /// Nil when the sizes do not agree (a damaged row).
    init?(count: Int, dim: Int, digests: UnsafeRawBufferPointer, scales: UnsafeRawBufferPointer, vectors: UnsafeRawBufferPointer) {
        guard count >= 0, dim > 0, digests.count == count * 8, scales.count == count * 4, vectors.count == count * dim,
              count == 0 || vectors.baseAddress != nil else { return nil }
        self.count = count; self.dim = dim; self.digests = digests; self.scales = scales; self.vectors = vectors
    }

    @inline(__always) func digest(_ i: Int) -> Int64 {
        Int64(bitPattern: UInt64(littleEndian: digests.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)))
    }

    @inline(__always) func scale(_ i: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: scales.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
    }
}

public enum VectorPacks {
    /// Vectors per pack (256 dimensions: 1 MB of vectors and 48 KB of digests and scales a row).
    public static let blockSize = 4096
    /// A question that finds at least this many unpacked vectors packs them first (when it can write).
    public static let askThreshold = 1000
    /// The embedding worker packs every this many vectors it stores (and at the end of each run).
    public static let workerThreshold = 8192

    /// Every vector of `model` with `dim` dimensions scored against `query` (the cosine, as
    /// `QuantizedVector.cosine`): digests and scores, in no particular order, each digest once.
    /// - Returns: also how many digests were read from the delta (unpacked).
    static func scores(_ db: Database, model: String, query: QuantizedVector) throws -> (keys: [Int64], scores: [Float], unpacked: Int) {
        let dim = query.values.count
        var keys: [Int64] = []
        var scores: [Float] = []
        guard dim > 0 else { return ([], [], 0) }
        var unpacked = Set<Int64>()
        // Room for every packed vector at once (growing by each pack's count would copy the arrays
        // once per pack).
        let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT sum(count) FROM vector_pack WHERE model = ? AND dim = ?"),
                                     arguments: [model, dim]) ?? 0
        keys.reserveCapacity(total + 64)
        scores.reserveCapacity(total + 64)
        try query.values.withUnsafeBufferPointer { q in
            // The digests written since the last packing, from `passage_vector` as they are now (none:
            // deleted). Their packed entries, if any, are out of date.
            let delta = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT d.digest, v.scale, v.vector FROM vector_pack_delta d
                LEFT JOIN passage_vector v ON v.model = d.model AND v.dim = d.dim AND v.digest = d.digest
                WHERE d.model = ? AND d.dim = ?
                """), arguments: [model, dim])
            while let row = try delta.next() {
                let key: Int64 = row[0]
                unpacked.insert(key)
                guard let scale = row[1] as Double? else { continue }
                let score: Float? = try row.withUnsafeData(atIndex: 2) { data in
                    guard let data, data.count == dim else { return nil }
                    return data.withUnsafeBytes { raw in
                        Float(VectorMath.dot(q, raw.bindMemory(to: Int8.self))) * Float(scale) * query.scale
                    }
                }
                if let score { keys.append(key); scores.append(score) }
            }
            var dots: [Int32] = []
            let skip = unpacked, qs = query.scale
            let packs = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT count, digests, scales, vectors FROM vector_pack WHERE model = ? AND dim = ?
                """), arguments: [model, dim])
            while let row = try packs.next() {
                let count: Int = row[0]
                try row.withUnsafeData(atIndex: 1) { d in
                    try row.withUnsafeData(atIndex: 2) { s in
                        try row.withUnsafeData(atIndex: 3) { v in
                            guard let d, let s, let v else { return }
                            d.withUnsafeBytes { d in s.withUnsafeBytes { s in v.withUnsafeBytes { v in
                                // A damaged pack is passed over here and rebuilt by the next packing.
                                guard let pack = PackView(count: count, dim: dim, digests: d, scales: s, vectors: v) else { return }
                                // The whole pack's products in one call, then its keys and scores in
                                // arrays of its own (the captured ones are reached through exclusivity
                                // checks: once a pack, not once a vector).
                                if dots.count < count { dots = [Int32](repeating: 0, count: count) }
                                let (packKeys, packScores) = dots.withUnsafeMutableBufferPointer { out -> ([Int64], [Float]) in
                                    VectorMath.dots(q, rows: v.bindMemory(to: Int8.self), count: count, into: out)
                                    var k: [Int64] = [], sc: [Float] = []
                                    k.reserveCapacity(count); sc.reserveCapacity(count)
                                    for i in 0..<count {
                                        let key = pack.digest(i)
                                        if !skip.isEmpty, skip.contains(key) { continue }
                                        k.append(key)
                                        sc.append(Float(out[i]) * pack.scale(i) * qs)
                                    }
                                    return (k, sc)
                                }
                                keys.append(contentsOf: packKeys)
                                scores.append(contentsOf: packScores)
                            } } }
                        }
                    }
                }
            }
        }
        return (keys, scores, unpacked.count)
    }

    /// Folds the delta into the packs, for `model` or every model: packs with an entry out of date,
    /// and the packs less than half full, are rewritten together with the new vectors into full
    /// packs (so at most one stays small); a damaged pack makes its (model, dim) packed again from
    /// `passage_vector`. Packs of a model or dimension with no vector left are dropped. A changed
    /// model or dimension never shares a pack.
    /// - Returns: how many delta entries were folded.
    @discardableResult
    static func pack(_ db: Database, model: String?, blockSize: Int = blockSize) throws -> Int {
        let size = max(1, blockSize)
        var groups: [(String, Int)] = []
        let sql = "SELECT DISTINCT model, dim FROM vector_pack_delta" + (model == nil ? "" : " WHERE model = ?")
        for row in try Row.fetchAll(db, sql: sql, arguments: model.map { [$0] } ?? []) { groups.append((row[0], row[1])) }
        guard !groups.isEmpty else { return 0 }
        // The last vector of a model goes through the delta too: its packs are dropped here.
        try db.execute(sql: """
            DELETE FROM vector_pack WHERE NOT EXISTS
                (SELECT 1 FROM passage_vector v WHERE v.model = vector_pack.model AND v.dim = vector_pack.dim)
            """)
        var folded = 0
        for (m, dim) in groups { folded += try packGroup(db, model: m, dim: dim, blockSize: size) }
        return folded
    }

    static func packGroup(_ db: Database, model: String, dim: Int, blockSize: Int) throws -> Int {
        var pool = VectorPack(dim: dim)
        var changed = Set<Int64>()
        let delta = try Row.fetchCursor(db, sql: """
            SELECT d.digest, v.scale, v.vector FROM vector_pack_delta d
            LEFT JOIN passage_vector v ON v.model = d.model AND v.dim = d.dim AND v.digest = d.digest
            WHERE d.model = ? AND d.dim = ? ORDER BY d.digest
            """, arguments: [model, dim])
        while let row = try delta.next() {
            let key: Int64 = row[0]
            changed.insert(key)
            guard let scale = row[1] as Double?, let data = row[2] as Data?, data.count == dim else { continue }
            data.withUnsafeBytes { pool.append(digest: key, scale: Float(scale), vector: $0) }
        }
        guard !changed.isEmpty else { return 0 }
        // Which packs to rewrite: read their digests only (the small columns come first in the row;
        // `length` of a blob reads no content).
        var rewrite: [Int64] = []
        var damaged = false
        for row in try Row.fetchAll(db, sql: """
            SELECT id, count, digests, length(scales), length(vectors) FROM vector_pack WHERE model = ? AND dim = ?
            """, arguments: [model, dim]) {
            let id: Int64 = row[0], count: Int = row[1]
            let digests = row[2] as Data? ?? Data()
            guard count >= 0, digests.count == count * 8, row[3] as Int? == count * 4, row[4] as Int? == count * dim else {
                damaged = true
                break
            }
            if count < blockSize / 2 { rewrite.append(id); continue }
            let stale = digests.withUnsafeBytes { raw in
                (0..<count).contains { i in
                    changed.contains(Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                }
            }
            if stale { rewrite.append(id) }
        }
        if !damaged {
            for id in rewrite {
                guard let row = try Row.fetchOne(db, sql: "SELECT count, digests, scales, vectors FROM vector_pack WHERE id = ?",
                                                 arguments: [id]),
                      let old = VectorPack.decode(count: row[0], dim: dim, digests: row[1] as Data? ?? Data(),
                                                  scales: row[2] as Data? ?? Data(), vectors: row[3] as Data? ?? Data())
                else { damaged = true; break }
                for i in 0..<old.count where !changed.contains(old.digests[i]) { pool.append(old, at: i) }
            }
        }
        if damaged {
            // Packed again from the source of truth.
            try db.execute(sql: "DELETE FROM vector_pack WHERE model = ? AND dim = ?", arguments: [model, dim])
            pool = VectorPack(dim: dim)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT digest, scale, vector FROM passage_vector WHERE model = ? AND dim = ? ORDER BY digest
                """, arguments: [model, dim])
            while let row = try rows.next() {
                let key: Int64 = row[0], scale: Double = row[1]
                try row.withUnsafeData(atIndex: 2) { data in
                    guard let data, data.count == dim else { return }
                    data.withUnsafeBytes { pool.append(digest: key, scale: Float(scale), vector: $0) }
                }
            }
        } else if !rewrite.isEmpty {
            try db.execute(sql: "DELETE FROM vector_pack WHERE id IN (\(rewrite.map(String.init).joined(separator: ",")))")
        }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO vector_pack(model, dim, count, digests, scales, vectors) VALUES (?, ?, ?, ?, ?, ?)
            """)
        var start = 0
        while start < pool.count {
            let end = min(pool.count, start + blockSize)
            let chunk = pool.slice(start..<end)
            let (d, s, v) = chunk.encoded()
            try insert.execute(arguments: [model, dim, chunk.count, d, s, v])
            start = end
        }
        try db.execute(sql: "DELETE FROM vector_pack_delta WHERE model = ? AND dim = ?", arguments: [model, dim])
        return changed.count
    }
}

extension AppDatabase {
    /// How many vectors of `model` are not packed yet (written or deleted since the last packing).
    public func unpackedVectorCount(model: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM vector_pack_delta WHERE model = ?", arguments: [model]) ?? 0
        }
    }

    /// Folds the vectors written since the last packing into the packs (`VectorPacks.pack`), for
    /// `model` or every model. - Returns: how many were folded.
    @discardableResult
    public func packVectors(model: String? = nil, blockSize: Int = VectorPacks.blockSize) throws -> Int {
        // Most calls find nothing to do: asked without taking the write lock.
        let pending = try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM vector_pack_delta" + (model == nil ? ")" : " WHERE model = ?)"),
                              arguments: model.map { [$0] } ?? []) ?? false
        }
        guard pending else { return 0 }
        return try writer.write { db in try VectorPacks.pack(db, model: model, blockSize: blockSize) }
    }
}
