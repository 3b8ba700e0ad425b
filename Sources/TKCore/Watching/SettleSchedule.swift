/// The pure state of a `Settler`: when each dirty key is due.
///
/// Times are `Duration`s since an arbitrary origin, so tests drive it without a clock. A key is
/// due once it has been quiet for `settle`, or `maxDelay` after its first touch if it keeps
/// changing: `deadline = min(lastTouch + settle, firstTouch + maxDelay)`.
public struct SettleSchedule<Key: Hashable & Sendable>: Sendable {
    public let settle: Duration
    public let maxDelay: Duration

    private struct Entry: Sendable {
        var first: Duration
        var deadline: Duration
        var generation: UInt64
    }
    private var entries: [Key: Entry] = [:]
    private var heap = DeadlineHeap<Key>()
    private var generation: UInt64 = 0

    public init(settle: Duration, maxDelay: Duration) {
        self.settle = max(settle, .zero)
        self.maxDelay = max(maxDelay, self.settle)
    }

    /// How many keys are waiting.
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Marks `key` dirty at `now`, pushing its deadline back (up to the maximum delay).
    public mutating func touch(_ key: Key, at now: Duration) {
        if var entry = entries[key] {
            let deadline = min(now + settle, entry.first + maxDelay)
            guard deadline != entry.deadline else { return }
            generation &+= 1
            entry.deadline = deadline
            entry.generation = generation
            entries[key] = entry
            heap.push(.init(deadline: deadline, generation: generation, key: key))
        } else {
            generation &+= 1
            let deadline = now + settle
            entries[key] = Entry(first: now, deadline: deadline, generation: generation)
            heap.push(.init(deadline: deadline, generation: generation, key: key))
        }
    }

    /// The deadline of `key`, or nil when it is not waiting.
    public func deadline(of key: Key) -> Duration? { entries[key]?.deadline }

    /// The earliest deadline of any waiting key.
    public mutating func nextDeadline() -> Duration? {
        dropStale()
        return heap.top?.deadline
    }

    /// Removes and returns the keys whose deadline is at or before `now`, earliest first.
    public mutating func releaseDue(at now: Duration) -> [Key] {
        var out: [Key] = []
        while let top = heap.top, top.deadline <= now {
            heap.pop()
            if let entry = entries[top.key], entry.generation == top.generation {
                entries[top.key] = nil
                out.append(top.key)
            }
        }
        return out
    }

    /// Removes and returns every waiting key, earliest deadline first.
    public mutating func releaseAll() -> [Key] {
        var out: [Key] = []
        while let top = heap.pop() {
            if let entry = entries[top.key], entry.generation == top.generation {
                entries[top.key] = nil
                out.append(top.key)
            }
        }
        return out
    }

    private mutating func dropStale() {
        while let top = heap.top {
            if let entry = entries[top.key], entry.generation == top.generation { return }
            heap.pop()
        }
    }
}

/// A binary min-heap of deadlines.
struct DeadlineHeap<Key: Sendable>: Sendable {
    struct Item: Sendable {
        var deadline: Duration
        var generation: UInt64
        var key: Key
        func precedes(_ other: Item) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : generation < other.generation
        }
    }
    private var items: [Item] = []

    var top: Item? { items.first }
    var count: Int { items.count }

    mutating func push(_ item: Item) {
        items.append(item)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].precedes(items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    @discardableResult
    mutating func pop() -> Item? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let out = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var best = i
            if l < items.count && items[l].precedes(items[best]) { best = l }
            if r < items.count && items[r].precedes(items[best]) { best = r }
            if best == i { break }
            items.swapAt(i, best)
            i = best
        }
        return out
    }
}
