import Foundation

/// Why a configuration edit was refused. One actionable line each.
public enum ConfigEditError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownKey(String)
    case invalidValue(key: String, why: String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .unknownKey(let k):
            "unknown config key \"\(k)\" (see `tk-agent config show` or config.example.json for the keys)"
        case .invalidValue(let k, let why): "config \(k): \(why)"
        case .unreadable(let why): why
        }
    }
}

/// Edits a JSON-with-comments config file in place, keeping its comments and layout. Pure.
public enum ConfigEditor {
    /// The text of a config file with `value` set at a dotted key. Existing members are replaced in
    /// place; a missing member is added at the end of the deepest object that exists.
    /// - Throws: `ConfigEditError.unreadable` when the text is not a JSON object (comments allowed).
    public static func setting(_ value: JSONValue, at key: String, in text: String) throws(ConfigEditError) -> String {
        let path = key.split(separator: ".").map(String.init)
        guard !path.isEmpty else { throw .invalidValue(key: key, why: "the key is empty") }
        let bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            return "{\n  " + member(path, value) + "\n}\n"
        }
        var scanner = Scanner(bytes: bytes)
        guard let root = scanner.parseDocument() else {
            throw .unreadable("the config file is not a JSON object (// comments are allowed); fix it or move it away")
        }
        var object = root
        var level = 0
        while true {
            let k = path[level]
            if let m = object.members.first(where: { $0.key == k }) {
                if level == path.count - 1 {
                    return splice(bytes, m.valueRange, render(value))
                }
                if let inner = m.object {
                    object = inner
                    level += 1
                    continue
                }
                return splice(bytes, m.valueRange, render(nested(Array(path[(level + 1)...]), value)))
            }
            return insert(member(Array(path[level...]), value), into: object, bytes: bytes)
        }
    }

    /// Parses a command-line VALUE for a key: JSON when it parses (true, 3, null, ["a"], "quoted"),
    /// else the text as a string. Keys whose default is a string keep bare words as strings.
    public static func parseValue(_ raw: String, forKey key: String) -> JSONValue {
        let defaultValue = ConfigurationLoader.value(at: key, in: ConfigurationLoader.defaultTree)
        if let v = try? JSONValue.parse(Array(raw.utf8)) {
            if case .string = defaultValue, case .string = v { return v }
            if case .string = defaultValue, case .null = v { return v }
            if case .string = defaultValue { return .string(raw) }
            return v
        }
        return .string(raw)
    }

    /// Checks a key exists and a value has the right type by decoding the defaults with it set.
    public static func validate(_ value: JSONValue, at key: String) throws(ConfigEditError) {
        let defaults = ConfigurationLoader.defaultTree
        guard ConfigurationLoader.value(at: key, in: defaults) != nil else { throw .unknownKey(key) }
        let tree = ConfigurationLoader.setting(value, at: key, in: defaults)
        do { _ = try ConfigurationLoader.decode(tree) } catch {
            throw .invalidValue(key: key, why: ConfigurationLoader.describeDecodingError(error))
        }
    }

    /// Every leaf of a tree as dotted keys, in key order (arrays and empty objects are leaves).
    public static func leaves(_ tree: JSONValue, prefix: String = "") -> [(String, JSONValue)] {
        guard case .object(let o) = tree, !o.isEmpty else { return prefix.isEmpty ? [] : [(prefix, tree)] }
        var out: [(String, JSONValue)] = []
        for k in o.keys.sorted() {
            out += leaves(o[k] ?? .null, prefix: prefix.isEmpty ? k : prefix + "." + k)
        }
        return out
    }

    /// A commented starting user config.
    public static let starter = """
        // tk-agent user configuration. JSON with `//` comments; every key is optional.
        // All keys and their defaults: config.example.json in the tk-agent repository, or `tk-agent config show`.
        // Change a value with `tk-agent config set KEY VALUE` (comments are kept). API keys do not belong here:
        // use `tk-agent config set providers.anthropic.api_key …` (stored 0600 or in the Secret Service).
        {
          // LLM provider: "auto" (a running Ollama, else Anthropic with a key, else OpenAI with a key),
          // "anthropic", "openai" or "ollama".
          "provider": "auto",
          // Model override for the chosen provider (null: the provider's default model).
          "model": null,
          "review": {
            // Queue an LLM review round automatically when a document has settled.
            "auto": true,
            // Daily spending limit in USD for paid providers; rounds over it wait.
            "daily_budget_usd": 1.0
          },
          "notifications": {
            // Desktop notification when a review round finishes.
            "enabled": true
          },
          "heuristics": {
            // Sentences longer than this are flagged.
            "max_sentence_words": 30,
            // Words never flagged (character names, product names).
            "allow": []
          }
        }

        """

    // MARK: - Editing

    static func render(_ v: JSONValue) -> String {
        String(decoding: (try? JSON.encode(v, pretty: false)) ?? Array("null".utf8), as: UTF8.self)
    }

    static func nested(_ path: [String], _ value: JSONValue) -> JSONValue {
        path.reversed().reduce(value) { inner, k in .object([k: inner]) }
    }

    static func member(_ path: [String], _ value: JSONValue) -> String {
        render(.string(path[0])) + ": " + render(nested(Array(path.dropFirst()), value))
    }

    static func splice(_ bytes: [UInt8], _ range: Range<Int>, _ text: String) -> String {
        String(decoding: bytes[..<range.lowerBound] + Array(text.utf8) + bytes[range.upperBound...], as: UTF8.self)
    }

    static func insert(_ memberText: String, into object: Scanner.Object, bytes: [UInt8]) -> String {
        guard let last = object.members.last else {
            // Empty object: put the member on its own line inside the braces.
            let indent = lineIndent(bytes, at: object.open) + "  "
            let closeIndent = lineIndent(bytes, at: object.open)
            let inner = Array("\n\(indent)\(memberText)\n\(closeIndent)".utf8)
            return String(decoding: bytes[...object.open] + inner + bytes[object.close...], as: UTF8.self)
        }
        let indent = lineIndent(bytes, at: last.keyStart)
        let sameLine = lineIndexOf(bytes, last.keyStart) == lineIndexOf(bytes, object.open)
        var lineEnd = last.valueRange.upperBound
        while lineEnd < bytes.count, bytes[lineEnd] != 10 { lineEnd += 1 }
        let rest = String(decoding: bytes[last.valueRange.upperBound..<lineEnd], as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        let comma = Array(",".utf8)
        if !sameLine, rest.isEmpty || rest.hasPrefix("//") {
            let addition = Array("\n\(indent)\(memberText)".utf8)
            return String(decoding: bytes[..<last.valueRange.upperBound] + comma
                          + bytes[last.valueRange.upperBound..<lineEnd] + addition + bytes[lineEnd...], as: UTF8.self)
        }
        let addition = Array(" \(memberText)".utf8)
        return String(decoding: bytes[..<last.valueRange.upperBound] + comma + addition
                      + bytes[last.valueRange.upperBound...], as: UTF8.self)
    }

    static func lineIndexOf(_ bytes: [UInt8], _ at: Int) -> Int {
        bytes[..<at].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }

    static func lineIndent(_ bytes: [UInt8], at: Int) -> String {
        var s = at
        while s > 0, bytes[s - 1] != 10 { s -= 1 }
        var e = s
        while e < bytes.count, bytes[e] == 32 || bytes[e] == 9 { e += 1 }
        return String(decoding: bytes[s..<e], as: UTF8.self)
    }

    /// A small JSON-with-comments scanner recording where objects' members are.
    struct Scanner {
        struct Member { var key: String; var keyStart: Int; var valueRange: Range<Int>; var object: Object? }
        final class Object {
            var open = 0
            var close = 0
            var members: [Member] = []
        }

        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func parseDocument() -> Object? {
            skip()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
            guard let o = parseObject() else { return nil }
            skip()
            return i == bytes.count ? o : nil
        }

        mutating func skip() {
            while i < bytes.count {
                let b = bytes[i]
                if b == 32 || b == 9 || b == 10 || b == 13 { i += 1; continue }
                if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                    while i < bytes.count, bytes[i] != 10 { i += 1 }
                    continue
                }
                if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    i += 2
                    while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                    i = min(bytes.count, i + 2)
                    continue
                }
                return
            }
        }

        mutating func parseObject() -> Object? {
            let o = Object()
            o.open = i
            i += 1
            skip()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { o.close = i; i += 1; return o }
            while i < bytes.count {
                skip()
                let keyStart = i
                guard let keyRange = parseString(),
                      let key = (try? JSONValue.parse(Array(bytes[keyRange])))?.stringValue else { return nil }
                skip()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skip()
                let start = i
                var inner: Object?
                if i < bytes.count, bytes[i] == UInt8(ascii: "{") {
                    guard let obj = parseObject() else { return nil }
                    inner = obj
                } else {
                    guard skipValue() else { return nil }
                }
                o.members.append(Member(key: key, keyStart: keyStart, valueRange: start..<i, object: inner))
                skip()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { o.close = i; i += 1; return o }
                return nil
            }
            return nil
        }

        mutating func parseString() -> Range<Int>? {
            guard i < bytes.count, bytes[i] == 34 else { return nil }
            let start = i
            i += 1
            while i < bytes.count {
                if bytes[i] == 92 { i += 2; continue }
                if bytes[i] == 34 { i += 1; return start..<i }
                i += 1
            }
            return nil
        }

        /// Skips a scalar, array or object value (strings and comments aware).
        mutating func skipValue() -> Bool {
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case 34: return parseString() != nil
            case UInt8(ascii: "{"): return parseObject() != nil
            case UInt8(ascii: "["):
                i += 1
                skip()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return true }
                while i < bytes.count {
                    skip()
                    guard skipValue() else { return false }
                    skip()
                    guard i < bytes.count else { return false }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "]") { i += 1; return true }
                    return false
                }
                return false
            default:
                let start = i
                while i < bytes.count, !" \t\r\n,}]/".utf8.contains(bytes[i]) { i += 1 }
                return i > start
            }
        }
    }
}
