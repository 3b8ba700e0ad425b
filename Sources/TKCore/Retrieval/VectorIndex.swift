import CVectorMath
import Foundation

/// An embedding normalised to unit length and quantised to int8 (`value ≈ Float(values[i]) * scale`):
/// a quarter of the space of float32, and a dot product in integers.
public struct QuantizedVector: Sendable, Equatable {
    public var values: [Int8]
    public var scale: Float

    public init(values: [Int8], scale: Float) { self.values = values; self.scale = scale }

    public init(_ raw: [Float]) {
        // A provider's vector is data from the network: a value out of range is no direction.
        let raw = raw.map { $0.isFinite ? $0 : 0 }
        var norm: Float = 0
        for x in raw { norm += x * x }
        norm = norm.squareRoot()
        let unit = norm > 0 ? raw.map { $0 / norm } : raw
        let maxAbs = unit.reduce(Float(0)) { max($0, abs($1)) }
        scale = maxAbs > 0 ? maxAbs / 127 : 1
        let s = scale
        values = unit.map { x in
            let q = (x / s).rounded()
            return q.isFinite ? Int8(clamping: Int(max(-127, min(127, q)))) : 0
        }
    }

    /// The cosine similarity with another quantised unit vector (0 when the dimensions differ).
    public func cosine(_ other: QuantizedVector) -> Float {
        guard values.count == other.values.count else { return 0 }
        return values.withUnsafeBufferPointer { a in
            other.values.withUnsafeBufferPointer { b in Float(VectorMath.dot(a, b)) * scale * other.scale }
        }
    }
}

/// Brute-force nearest neighbours over int8 vectors held in one contiguous buffer.
public struct VectorMatrix: Sendable {
    public let dim: Int
    public private(set) var keys: [Int64] = []
    public private(set) var scales: [Float] = []
    public private(set) var data: [Int8] = []

    public init(dim: Int) { self.dim = dim }

    public var count: Int { keys.count }

    public mutating func reserve(_ n: Int) {
        keys.reserveCapacity(n); scales.reserveCapacity(n); data.reserveCapacity(n * dim)
    }

    /// Adds a vector given as raw int8 bytes (ignored when its length is not `dim`).
    public mutating func append(key: Int64, scale: Float, bytes: UnsafeRawBufferPointer) {
        guard bytes.count == dim else { return }
        keys.append(key)
        scales.append(scale)
        data.append(contentsOf: bytes.bindMemory(to: Int8.self))
    }

    /// Cosine similarity of every vector with `query` (same order as `keys`).
    public func scores(_ query: QuantizedVector) -> [Float] {
        guard query.values.count == dim, dim > 0 else { return [Float](repeating: 0, count: count) }
        var dots = [Int32](repeating: 0, count: count)
        query.values.withUnsafeBufferPointer { q in
            data.withUnsafeBufferPointer { all in
                dots.withUnsafeMutableBufferPointer { VectorMath.dots(q, rows: all, count: count, into: $0) }
            }
        }
        return (0..<count).map { Float(dots[$0]) * scales[$0] * query.scale }
    }
}

enum VectorMath {
    /// The integer dot product of two int8 vectors (over the shorter length), exact: pairs of 16-bit
    /// products summed into 32 bits with the processor's vector instructions (`CVectorMath`).
    @inline(__always)
    static func dot(_ a: UnsafeBufferPointer<Int8>, _ b: UnsafeBufferPointer<Int8>) -> Int32 {
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return 0 }
        return tk_dot_i8(pa, pb, min(a.count, b.count))
    }

    /// The dot product of `query` with each of `count` rows of `rows` (`query.count` values each, one
    /// after another), written to `out` (room for `count`). Rows beyond the buffer are not read.
    static func dots(_ query: UnsafeBufferPointer<Int8>, rows: UnsafeBufferPointer<Int8>, count: Int,
                     into out: UnsafeMutableBufferPointer<Int32>) {
        let dim = query.count
        guard dim > 0, count > 0, count <= out.count, count * dim <= rows.count,
              let q = query.baseAddress, let r = rows.baseAddress, let o = out.baseAddress else { return }
        tk_dot_i8_rows(q, r, count, dim, o)
    }

    /// Which kernel `dot` uses on this processor ("avx2", "sse2" or "portable").
    static var kernel: String { String(cString: tk_dot_i8_kernel()) }

    /// The indices of the `m` highest scores, best first (ties by `keys` when given, else by
    /// index: the order then does not depend on the order the vectors were stored in); all of them
    /// when `m` is at least the count. Linear in the count: candidates are gathered in a buffer of
    /// 2m that is cut back to the best m whenever it fills, which also raises the bar for the rest.
    static func bestFirst(_ scores: [Float], keys: [Int64]? = nil, first m: Int) -> [Int] {
        func better(_ a: Int, _ b: Int) -> Bool {
            if scores[a] != scores[b] { return scores[a] > scores[b] }
            if let keys { return keys[a] != keys[b] ? keys[a] < keys[b] : a < b }
            return a < b
        }
        if m >= scores.count { return scores.indices.sorted(by: better) }
        guard m > 0 else { return [] }
        var buf: [Int] = []
        buf.reserveCapacity(2 * m)
        var bar = -Float.infinity
        for i in scores.indices where scores[i] >= bar {
            buf.append(i)
            if buf.count == 2 * m {
                buf.sort(by: better)
                buf.removeLast(m)
                bar = scores[buf[m - 1]]
            }
        }
        buf.sort(by: better)
        return Array(buf.prefix(m))
    }
}
