import CHunspell
import Foundation
import Synchronization

/// A Hunspell dictionary for one language, with a per-word result cache.
///
/// A `Hunhandle` is not thread-safe (Hunspell keeps scratch buffers in the handle), so the handle
/// and the caches live inside one `Mutex`: every call into Hunspell happens with the lock held.
/// `Mutex` is `Sendable` by itself, so the class needs no `@unchecked Sendable`.
public final class Speller: Sendable {
    /// The dictionary's name, e.g. `en_US`.
    public let language: String

    private struct State: ~Copyable {
        let handle: OpaquePointer
        /// Case-sensitive word hash → known to the dictionary.
        var known: [UInt64: Bool] = [:]
        /// Word → suggestions, best first.
        var suggestions: [String: [String]] = [:]
        deinit { Hunspell_destroy(handle) }
    }

    private let state: Mutex<State>

    private init?(language: String, aff: String, dic: String) {
        guard let h = Hunspell_create(aff, dic) else { return nil }
        self.language = language
        state = Mutex(State(handle: h))
    }

    /// Folders searched for `<lang>.aff` / `<lang>.dic`: `$DICPATH` (colon-separated), then Debian's.
    static func searchPath(environment: [String: String]) -> [String] {
        var dirs = (environment["DICPATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        dirs += ["/usr/share/hunspell", "/usr/share/myspell", "/usr/share/myspell/dicts"]
        return dirs
    }

    /// `en-us`, `en_US`, `EN-us` → `en_US`; `en` → `en_US`; `en-UK` → `en_GB`.
    public static func normalize(_ lang: String) -> String {
        let parts = lang.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard let first = parts.first, !first.isEmpty else { return "en_US" }
        let l = first.lowercased()
        guard parts.count > 1 else { return l == "en" ? "en_US" : l }
        var region = parts[1].uppercased()
        if l == "en" && region == "UK" { region = "GB" }
        return l + "_" + region
    }

    private static let registry = Mutex<[String: Result<Speller, SpellerProblem>]>([:])

    /// The shared speller of a language (loaded once per process), or why there is none.
    public static func named(_ lang: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Result<Speller, SpellerProblem> {
        let name = normalize(lang)
        if let hit = registry.withLock({ $0[name] }) { return hit }
        let result = load(name, environment: environment)
        return registry.withLock { r in
            if let hit = r[name] { return hit }   // another thread won the race: keep one speller
            r[name] = result
            return result
        }
    }

    private static func load(_ name: String, environment: [String: String]) -> Result<Speller, SpellerProblem> {
        // A name with a slash would let a document's front matter point anywhere.
        guard !name.contains("/"), !name.contains(".."), !name.isEmpty else {
            return .failure(SpellerProblem(language: name, message: "'\(name)' is not a language name (like en_US or en_GB)"))
        }
        let dirs = searchPath(environment: environment)
        for dir in dirs {
            let aff = dir + "/" + name + ".aff", dic = dir + "/" + name + ".dic"
            guard FileManager.default.isReadableFile(atPath: aff), FileManager.default.isReadableFile(atPath: dic) else {
                continue
            }
            guard let speller = Speller(language: name, aff: aff, dic: dic) else { continue }
            return .success(speller)
        }
        let package = "hunspell-" + name.lowercased().replacingOccurrences(of: "_", with: "-")
        return .failure(SpellerProblem(
            language: name,
            message: "no Hunspell dictionary \(name).aff/.dic in \(dirs.joined(separator: ", ")); install \(package) "
                + "or set heuristics.lang (or the front matter's lang:); spelling is skipped"))
    }

    /// Whether each word is in the dictionary; `keys` are case-sensitive hashes of `words` (same order).
    /// Takes the lock once for the whole batch and remembers every answer.
    func check(_ words: [String], keys: [UInt64]) -> [Bool] {
        state.withLock { s in
            var out = [Bool](repeating: true, count: words.count)
            for i in words.indices {
                if let k = s.known[keys[i]] { out[i] = k; continue }
                let ok = Hunspell_spell(s.handle, words[i]) != 0
                s.known[keys[i]] = ok
                out[i] = ok
            }
            return out
        }
    }

    /// Whether one word is in the dictionary (no cache; for tests and one-off checks).
    public func isCorrect(_ word: String) -> Bool {
        state.withLock { s in Hunspell_spell(s.handle, word) != 0 }
    }

    /// Hunspell's suggestions for a misspelt word, best first, at most `limit`.
    public func suggestions(_ word: String, limit: Int = 3) -> [String] {
        state.withLock { s in
            if let hit = s.suggestions[word] { return Array(hit.prefix(limit)) }
            var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            let n = Hunspell_suggest(s.handle, &list, word)
            var out: [String] = []
            if n > 0, let list {
                for i in 0..<Int(n) {
                    if let c = list[i] { out.append(String(cString: c)) }
                }
            }
            if list != nil { Hunspell_free_list(s.handle, &list, n) }
            // Hunspell also proposes the word itself split by a space or hyphen ("co lour"): rarely
            // meant, so dropped; its order is kept otherwise.
            var seen = Set<String>()
            out = out.filter { sug in
                if sug.isEmpty || !seen.insert(sug).inserted { return false }
                let joined = sug.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "-", with: "")
                return joined != word || sug == word
            }
            if s.suggestions.count > 50_000 { s.suggestions.removeAll() }
            s.suggestions[word] = out
            return Array(out.prefix(limit))
        }
    }
}

/// Why spelling cannot run for a language: one line for stderr or `status` problems.
public struct SpellerProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var language: String
    public var message: String
    public var description: String { "spelling: " + message }
}
