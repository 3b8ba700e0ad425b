import Foundation

/// Prices per million tokens, in US dollars, embedded so cost needs no network.
///
/// A model is matched by the longest known prefix of its id (so dated ids such as
/// `claude-haiku-4-5-20251001` and `gpt-4o-2024-08-06` find their family, and `gpt-4o-mini` is not
/// priced as `gpt-4o`). A model that matches nothing costs 0: the price is unknown, not free, and
/// `price(for:)` returns nil so callers can say so. Local servers (Ollama, llama.cpp…) cost 0.
public enum CostTable {
    public struct Price: Sendable, Equatable {
        /// Uncached input, per million tokens.
        public var input: Double
        public var output: Double
        /// Cache reads, per million tokens.
        public var cacheRead: Double
        /// Cache writes, per million tokens (Anthropic: 1.25× input for the 5-minute cache).
        public var cacheWrite: Double

        /// Anthropic pricing: cache writes 1.25× and cache reads 0.1× the input price.
        static func anthropic(_ input: Double, _ output: Double) -> Price {
            Price(input: input, output: output, cacheRead: input * 0.1, cacheWrite: input * 1.25)
        }
        /// OpenAI pricing: cached input at its own price; there is no charge for writing the cache.
        static func openai(_ input: Double, _ output: Double, cached: Double) -> Price {
            Price(input: input, output: output, cacheRead: cached, cacheWrite: input)
        }
    }

    /// Prices by model-id prefix (Anthropic and OpenAI list prices, late 2026).
    public static let prices: [String: Price] = [
        // Anthropic
        "claude-opus-4-8": .anthropic(5, 25),
        "claude-opus-4-7": .anthropic(5, 25),
        "claude-opus-4-6": .anthropic(5, 25),
        "claude-opus-4-5": .anthropic(5, 25),
        "claude-opus-4-1": .anthropic(15, 75),
        "claude-opus-4": .anthropic(15, 75),
        "claude-sonnet-4": .anthropic(3, 15),
        "claude-haiku-4": .anthropic(1, 5),
        "claude-3-7-sonnet": .anthropic(3, 15),
        "claude-3-5-sonnet": .anthropic(3, 15),
        "claude-3-5-haiku": .anthropic(0.8, 4),
        "claude-3-opus": .anthropic(15, 75),
        "claude-3-haiku": .anthropic(0.25, 1.25),
        // OpenAI
        "gpt-4o-mini": .openai(0.15, 0.6, cached: 0.075),
        "gpt-4o": .openai(2.5, 10, cached: 1.25),
        "gpt-4.1-nano": .openai(0.1, 0.4, cached: 0.025),
        "gpt-4.1-mini": .openai(0.4, 1.6, cached: 0.1),
        "gpt-4.1": .openai(2, 8, cached: 0.5),
        "gpt-5-nano": .openai(0.05, 0.4, cached: 0.005),
        "gpt-5-mini": .openai(0.25, 2, cached: 0.025),
        "gpt-5": .openai(1.25, 10, cached: 0.125),
        "o4-mini": .openai(1.1, 4.4, cached: 0.275),
        "o3-mini": .openai(1.1, 4.4, cached: 0.55),
        "o3": .openai(2, 8, cached: 0.5),
        "o1-mini": .openai(1.1, 4.4, cached: 0.55),
        "o1": .openai(15, 60, cached: 7.5),
    ]

    /// The price of a model, or nil when it is not in the table.
    public static func price(for model: String) -> Price? {
        var id = model.lowercased()
        if let slash = id.lastIndex(of: "/") { id = String(id[id.index(after: slash)...]) }  // "openai/gpt-4o"
        var best: (String, Price)?
        for (prefix, price) in prices where id.hasPrefix(prefix) {
            if prefix.count > (best?.0.count ?? -1) { best = (prefix, price) }
        }
        return best?.1
    }

    /// The cost of a reply in US dollars. `inputTokens` includes the cached tokens (see `LLMUsage`).
    /// - Parameter local: a local server (always 0).
    public static func cost(model: String, usage: LLMUsage, local: Bool = false) -> Double {
        guard !local, let p = price(for: model) else { return 0 }  // unknown model: price unknown, counted as 0
        let uncached = max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)
        let dollars = Double(uncached) * p.input + Double(usage.cacheReadTokens) * p.cacheRead
            + Double(usage.cacheWriteTokens) * p.cacheWrite + Double(usage.outputTokens) * p.output
        return dollars / 1_000_000
    }
}
