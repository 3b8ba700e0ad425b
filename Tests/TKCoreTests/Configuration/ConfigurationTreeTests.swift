import Foundation
import Testing
@testable import TKCore

/// `Configuration(tree:)` reads a merged tree without `Codable`: it must give what the `Codable`
/// round trip gives whenever that succeeds, and decline (so that the loader reports the `Codable`
/// error) whenever that fails.
@Suite struct ConfigurationTreeTests {
    /// Every leaf's dotted path in a tree, with the leaf.
    static func leaves(_ v: JSONValue, prefix: [String] = []) -> [[String]] {
        if case .object(let o) = v, !o.isEmpty {
            return o.keys.sorted().flatMap { leaves(o[$0] ?? .null, prefix: prefix + [$0]) }
        }
        return [prefix]
    }

    static func replacing(_ tree: JSONValue, at path: [String], with value: JSONValue?) -> JSONValue {
        guard let head = path.first, case .object(var o) = tree else { return value ?? tree }
        if path.count == 1 {
            o[head] = value
        } else {
            o[head] = replacing(o[head] ?? .object([:]), at: Array(path.dropFirst()), with: value)
        }
        return .object(o)
    }

    @Test func theDefaultsReadAlike() throws {
        let fast = try #require(Configuration(tree: ConfigurationLoader.defaultTree))
        #expect(fast == (try ConfigurationLoader.decodeCodable(ConfigurationLoader.defaultTree)))
        #expect(fast == Configuration.defaults)
    }

    /// Each leaf of the defaults, and each object above one, replaced by values of every JSON kind
    /// (and removed): both readers agree on every variant, and the direct one declines none that
    /// `Codable` reads.
    @Test func everyLeafWithEveryKindOfValue() throws {
        let base = ConfigurationLoader.defaultTree
        let values: [JSONValue?] = [
            nil, .null, .bool(true), .bool(false), .number(3), .number(0), .number(-2), .number(2.5), .number(1e16),
            .number(123_456_789_012), .number(9e18), .number(1e19), .number(-1e16), .string(""), .string("x"), .array([]), .array([.string("a"), .string("b")]),
            .array([.number(1)]), .array([.null]), .object([:]), .object(["a": .string("b")]),
        ]
        var paths = Self.leaves(base)
        // The objects too (a layer may set `review` to a string), and the root.
        for p in paths { for n in 1..<p.count { paths.append(Array(p.prefix(n))) } }
        var cases = 0
        for path in Set(paths.map { $0.joined(separator: ".") }).sorted() {
            let parts = path.split(separator: ".").map(String.init)
            for value in values {
                let tree = Self.replacing(base, at: parts, with: value)
                let codable = try? ConfigurationLoader.decodeCodable(tree)
                let direct = Configuration(tree: tree)
                #expect(direct == codable, "\(path) = \(value.map { "\($0)" } ?? "(removed)")")
                cases += 1
            }
        }
        #expect(cases > 600)
        // A key the configuration does not know is ignored by both.
        let extra = Self.replacing(base, at: ["review", "no_such_key"], with: .string("x"))
        #expect(Configuration(tree: extra) == Configuration.defaults)
        // The loader decodes through both: a wrong type still names the key.
        let wrong = Self.replacing(base, at: ["review", "max_attempts"], with: .string("four"))
        #expect(throws: (any Error).self) { try ConfigurationLoader.decode(wrong) }
    }

    @Test func aUserLayerWithDifferentValues() throws {
        let layer = try JSONValue.parse(Array("""
        {"provider": "ollama", "model": "llama3", "review": {"daily_budget_usd": 2.5, "exclude": ["drafts/**"]},
         "heuristics": {"max_sentence_words": 25, "disabled": ["passive"], "lang": "en_GB"},
         "embeddings": {"max_tokens": 256, "remote": false}, "progress": {"daily_goal": 500, "deadline": "2027-01-31"},
         "history": {"keep": {"all_days": 3}}, "advisors": ["editor"], "story_type": "novel"}
        """.utf8))
        let tree = ConfigurationLoader.merge(ConfigurationLoader.defaultTree, layer)
        let direct = try #require(Configuration(tree: tree))
        #expect(direct == (try ConfigurationLoader.decodeCodable(tree)))
        #expect(direct.heuristics.maxSentenceWords == 25 && direct.history.keep.allDays == 3 && direct.embeddings.maxTokens == 256)
    }
}
