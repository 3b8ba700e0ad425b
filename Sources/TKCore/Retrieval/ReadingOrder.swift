import Foundation

/// A project's reading order: documents in natural path order (`scene-2` before `scene-10`), with
/// `tk: {order: N}` in front matter placing a document at position N of that order (ties: path).
public enum ReadingOrder {
    /// Natural comparison: runs of digits compare as numbers, the rest case-insensitively.
    public static func naturalLess(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
        var i = 0, j = 0
        func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var ei = i, ej = j
                while ei < x.count && isDigit(x[ei]) { ei += 1 }
                while ej < y.count && isDigit(y[ej]) { ej += 1 }
                // Compare without leading zeros: longer is bigger, then digit by digit.
                var si = i, sj = j
                while si < ei - 1 && x[si].value == 48 { si += 1 }
                while sj < ej - 1 && y[sj].value == 48 { sj += 1 }
                if ei - si != ej - sj { return ei - si < ej - sj }
                for k in 0..<(ei - si) where x[si + k] != y[sj + k] { return x[si + k].value < y[sj + k].value }
                if ei - i != ej - j { return ei - i < ej - j }
                i = ei; j = ej
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value }
                i += 1; j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }

    /// Sorts documents into reading order.
    /// - Returns: document id → position (0-based).
    public static func positions(_ docs: [(id: Int64, path: String, order: Double?)]) -> [Int64: Int] {
        let natural = docs.sorted { naturalLess($0.path, $1.path) }
        var keyed: [(key: Double, rank: Int, id: Int64)] = []
        for (rank, d) in natural.enumerated() { keyed.append((d.order ?? Double(rank + 1), rank, d.id)) }
        keyed.sort { $0.key != $1.key ? $0.key < $1.key : $0.rank < $1.rank }
        var out: [Int64: Int] = [:]
        for (i, k) in keyed.enumerated() { out[k.id] = i }
        return out
    }
}

/// A point in a project's reading order: a document and optionally a line in it.
public struct ReadingPoint: Sendable, Equatable {
    public var documentID: Int64
    public var line: Int?
    public init(documentID: Int64, line: Int?) { self.documentID = documentID; self.line = line }
}

/// Which passages retrieval may return: projects, and a window of the reading order.
public struct RetrievalScope: Sendable {
    public var projectIDs: [Int64]
    public var until: ReadingPoint?
    public var from: ReadingPoint?
    /// Document id → reading position (needed with `until`/`from`).
    public var positions: [Int64: Int] = [:]

    public init(projectIDs: [Int64], until: ReadingPoint? = nil, from: ReadingPoint? = nil, positions: [Int64: Int] = [:]) {
        self.projectIDs = projectIDs; self.until = until; self.from = from; self.positions = positions
    }

    /// The lines of a passage inside the window (nil: none).
    public func clip(documentID: Int64, start: Int, end: Int) -> ClosedRange<Int>? {
        var lo = start, hi = end
        if let u = until {
            guard let limit = positions[u.documentID], let pos = positions[documentID] else { return nil }
            if pos > limit { return nil }
            if pos == limit, let line = u.line { if start > line { return nil }; hi = min(hi, line) }
        }
        if let f = from {
            guard let limit = positions[f.documentID], let pos = positions[documentID] else { return nil }
            if pos < limit { return nil }
            if pos == limit, let line = f.line { if end < line { return nil }; lo = max(lo, line) }
        }
        return lo...hi
    }

    public var isWindowed: Bool { until != nil || from != nil }
}
