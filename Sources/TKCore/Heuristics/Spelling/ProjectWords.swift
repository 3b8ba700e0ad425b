import Foundation
import Synchronization

/// What a project teaches the spell checker: its dictionary (`.tk/dictionary.txt`, one word a line,
/// made to be committed) and the words written capitalised at least `nameThreshold` times across its
/// documents (character and place names, product names).
public struct ProjectWords: Sendable, Equatable {
    /// Words of `.tk/dictionary.txt`, exactly as written and lower-cased.
    public var dictionary: Set<String>
    /// Lower-cased words that occur capitalised at least `nameThreshold` times in the project.
    public var names: Set<String>

    public static let nameThreshold = 3
    /// At most this many bytes of documents are read to count names (about 5 million words).
    public static let scanBudgetBytes = 32 << 20
    public static let dictionaryFile = ".tk/dictionary.txt"

    public init(dictionary: Set<String> = [], names: Set<String> = []) {
        self.dictionary = dictionary; self.names = names
    }

    /// Whether the project accepts `word` (a dictionary entry in any case, or a name).
    public func accepts(_ word: String) -> Bool {
        if dictionary.isEmpty && names.isEmpty { return false }
        if dictionary.contains(word) { return true }
        let lower = word.lowercased()
        if dictionary.contains(lower) || names.contains(lower) { return true }
        // Possessives: "Elowen's".
        for suffix in ["'s", "\u{2019}s"] where lower.hasSuffix(suffix) {
            let stem = String(lower.dropLast(suffix.count))
            if dictionary.contains(stem) || names.contains(stem) { return true }
        }
        return false
    }

    /// Parses a dictionary file: one word a line; blank lines and lines starting with `#` are skipped.
    public static func parseDictionary(_ bytes: [UInt8]) -> Set<String> {
        var out = Set<String>()
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let w = line.trimmingCharacters(in: .whitespaces)
            if w.isEmpty || w.hasPrefix("#") { continue }
            out.insert(w)
            out.insert(w.lowercased())
        }
        return out
    }

    /// Adds the capitalised words of `bytes` to `counts` (key: the word lower-cased). A capitalised
    /// word is an upper-case ASCII letter after a non-letter, then lower-case letters (any script),
    /// so acronyms and camelCase are not counted.
    public static func countCapitalised(_ bytes: [UInt8], into counts: inout [String: Int]) {
        let n = bytes.count
        var i = 0
        bytes.withUnsafeBufferPointer { p in
            while i < n {
                let c = p[i]
                guard c >= 65 && c <= 90 else { i += 1; continue }
                if i > 0 {
                    let b = p[i - 1]
                    if (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b >= 0x80 || b == 95 {
                        i += 1
                        while i < n, p[i] >= 65 && p[i] <= 90 || p[i] >= 97 && p[i] <= 122 { i += 1 }
                        continue
                    }
                }
                var j = i + 1
                var plain = true
                while j < n {
                    let d = p[j]
                    if d >= 97 && d <= 122 || d >= 0x80 { j += 1; continue }
                    if d >= 65 && d <= 90 || d >= 48 && d <= 57 || d == 95 { plain = false; j += 1; continue }
                    break
                }
                if plain, j - i >= 2, j - i <= 40 {
                    let word = String(decoding: UnsafeBufferPointer(rebasing: p[i..<j]), as: UTF8.self).lowercased()
                    counts[word, default: 0] += 1
                }
                i = j
            }
        }
    }

    /// Reads a project's dictionary and counts capitalised words across its documents (the
    /// watcher's rules: hidden folders, `node_modules` and `ignore` globs skipped; files over
    /// `maxFileBytes` left out). Unreadable files are skipped silently: this only widens what is accepted.
    public static func scan(project: PathBytes, ignore: [String] = [], maxFileBytes: Int = 10 << 20) -> ProjectWords {
        var words = ProjectWords()
        if let bytes = try? FileSystem.read(project.appending(dictionaryFile), limit: 8 << 20) {
            words.dictionary = parseDictionary(bytes)
        }
        // Names are counted across a real project only (a folder with `.tk/`): `check notes.md` in a
        // folder that is no project must not walk, say, the whole home folder.
        guard FileSystem.lstatIfExists(project.appending(".tk"))?.kind == .directory else { return words }
        var counts: [String: Int] = [:]
        let walk = DirectoryWalker.walk(root: project, directory: project, filter: PathFilter(ignore: ignore))
        // A budget keeps a huge project cheap: past it, the names are those of the documents read so far.
        var budget = Self.scanBudgetBytes
        for (path, stat) in walk.documents where stat.size <= Int64(maxFileBytes) {
            guard budget > 0 else { break }
            if let bytes = try? FileSystem.read(path, limit: maxFileBytes) {
                budget -= bytes.count
                countCapitalised(bytes, into: &counts)
            }
        }
        for (w, c) in counts where c >= nameThreshold { words.names.insert(w) }
        // Only the names are kept: once the counts (up to ~100k words for a big project) and the file
        // buffers are freed, hand their pages back instead of leaving them in glibc's arenas.
        if Self.scanBudgetBytes - budget > 1 << 20 {
            counts = [:]
            Speller.trimMemory()
        }
        return words
    }

    private struct CacheEntry: Sendable {
        var words: ProjectWords
        var loadedAt: ContinuousClock.Instant
        var dictionaryMtime: Int64
    }

    private static let cache = Mutex<[PathBytes: CacheEntry]>([:])

    /// Forgets what `cached` remembers of a project (its dictionary changed just now: a second
    /// change within the file system's timestamp granularity would not show in the mtime).
    public static func invalidate(project: PathBytes) {
        cache.withLock { _ = $0.removeValue(forKey: project) }
    }

    /// `scan(project:)`, remembered per project for `maxAge` (the agent calls this on every save; the
    /// name counts may lag a new name by that long). A changed dictionary file is re-read at once.
    public static func cached(project: PathBytes, ignore: [String] = [], maxAge: Duration = .seconds(300)) -> ProjectWords {
        let mtime = FileSystem.lstatIfExists(project.appending(dictionaryFile))?.mtimeNs ?? -1
        let now = ContinuousClock.now
        if let hit = cache.withLock({ $0[project] }), hit.dictionaryMtime == mtime, now - hit.loadedAt < maxAge {
            return hit.words
        }
        let words = scan(project: project, ignore: ignore)
        cache.withLock { c in
            if c.count > 64 { c.removeAll() }
            c[project] = CacheEntry(words: words, loadedAt: now, dictionaryMtime: mtime)
        }
        return words
    }
}
