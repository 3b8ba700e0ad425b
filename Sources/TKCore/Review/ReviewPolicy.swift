import Foundation

/// The review queue's decisions as pure functions: when a document is quiet, how much of it changed,
/// whether it may be sent at all, and whether a round fits in the daily budget.
public enum ReviewPolicy {
    // MARK: Changed words

    /// The words of a document's prose as a sorted list of 32-bit hashes (case-folded), so that two
    /// versions can be compared without keeping their text. Code, URLs and front matter are left out.
    public static func wordBag(_ doc: MarkdownDocument) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(doc.wordCount)
        let bytes = doc.bytes
        for block in doc.proseBlocks {
            var m = 0
            var hash: UInt32 = 2_166_136_261
            var inWord = false
            var i = block.range.lowerBound
            let end = min(block.range.upperBound, bytes.count)
            func flush() {
                if inWord { out.append(hash) }
                hash = 2_166_136_261
                inWord = false
            }
            while i < end {
                if m < block.masks.count, block.masks[m].range.lowerBound <= i {
                    i = max(i, block.masks[m].range.upperBound)
                    m += 1
                    flush()
                    continue
                }
                let c = bytes[i]
                let isWord = c >= 0x80 || TextClass.isASCIIWordByte(c) || c == 39
                if isWord {
                    let folded = (c >= 65 && c <= 90) ? c + 32 : c
                    hash = (hash ^ UInt32(folded)) &* 16_777_619
                    inWord = true
                } else {
                    flush()
                }
                i += 1
            }
            flush()
        }
        return out.sorted()
    }

    /// How many words changed between two word bags: the larger of the words added and the words removed.
    /// A first round compares against an empty bag, so it counts every word.
    public static func changedWords(old: [UInt32], new: [UInt32]) -> Int {
        var i = 0, j = 0, added = 0, removed = 0
        while i < old.count, j < new.count {
            if old[i] == new[j] { i += 1; j += 1 } else if old[i] < new[j] { removed += 1; i += 1 } else { added += 1; j += 1 }
        }
        removed += old.count - i
        added += new.count - j
        return max(added, removed)
    }

    static func encode(_ bag: [UInt32]) -> Data {
        var data = Data(capacity: bag.count * 4)
        for v in bag { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func decode(_ data: Data) -> [UInt32] {
        let b = [UInt8](data)
        return stride(from: 0, to: b.count - b.count % 4, by: 4).map {
            UInt32(b[$0]) | UInt32(b[$0 + 1]) << 8 | UInt32(b[$0 + 2]) << 16 | UInt32(b[$0 + 3]) << 24
        }
    }

    // MARK: Quiet

    /// Whether a document last changed at `lastChange` has been left alone long enough.
    public static func isQuiet(lastChange: Date?, now: Date, quietSeconds: Double) -> Bool {
        guard let lastChange else { return true }
        return now.timeIntervalSince(lastChange) >= quietSeconds
    }

    /// When a document changed at `lastChange` becomes quiet.
    public static func quietAt(lastChange: Date, quietSeconds: Double) -> Date {
        lastChange.addingTimeInterval(max(0, quietSeconds))
    }

    // MARK: Exclusion

    /// Why a document must never be sent to a provider, or nil when it may be.
    /// - Parameters:
    ///   - relative: the document's path relative to its project (matched against `review.exclude`).
    public static func exclusion(frontMatter: FrontMatter, relative: PathBytes, config: Configuration) -> String? {
        if frontMatter.tk.review == false {
            return "not sent for review: its front matter says `tk: {review: false}`"
        }
        for pattern in config.review.exclude where GlobPattern(pattern).matches(relative, isDirectory: false) {
            return "not sent for review: it matches review.exclude pattern \"\(pattern)\""
        }
        // A pattern naming a folder excludes the documents under it too.
        var dir = relative.parent
        while !dir.isEmpty {
            for pattern in config.review.exclude where GlobPattern(pattern).matches(dir, isDirectory: true) {
                return "not sent for review: it matches review.exclude pattern \"\(pattern)\""
            }
            let up = dir.parent
            if up == dir { break }
            dir = up
        }
        return nil
    }

    // MARK: Budget

    /// Whether a provider runs on this machine (Ollama, or an OpenAI-compatible server on localhost):
    /// its calls cost nothing and are exempt from the daily budget.
    public static func isLocal(providerName: String, config: Configuration) -> Bool {
        switch providerName {
        case "ollama":
            return true
        case "openai":
            return isLocalURL(config.providers.openai.baseUrl)
        default:
            return false
        }
    }

    static func isLocalURL(_ s: String) -> Bool {
        guard let host = URL(string: s)?.host?.lowercased() else { return false }
        return host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
            || host.hasSuffix(".localhost")
    }

    /// Why a round must wait for the budget, or nil when it may run.
    /// - Parameters:
    ///   - spentToday: what non-local calls cost today (UTC).
    ///   - estimate: the round's estimated cost, when one can be made.
    ///   - budget: `review.daily_budget_usd`; 0 allows local providers only.
    public static func budgetReason(spentToday: Double, estimate: Double?, budget: Double, local: Bool) -> String? {
        if local { return nil }
        let b = max(0, budget)
        if spentToday >= b {
            return String(format: "daily budget reached: $%.4f of $%.2f spent today (UTC); waits until tomorrow or a higher review.daily_budget_usd", spentToday, b)
        }
        if let estimate, estimate > 0, spentToday + estimate > b {
            return String(format: "daily budget would be exceeded: this round costs about $%.4f and $%.4f of $%.2f is spent today (UTC); waits until tomorrow or a higher review.daily_budget_usd", estimate, spentToday, b)
        }
        return nil
    }

    /// A rough token count for a prompt (4 bytes a token), for budget estimates.
    public static func estimatedTokens(_ text: String) -> Int { text.utf8.count / 4 + 1 }
}
