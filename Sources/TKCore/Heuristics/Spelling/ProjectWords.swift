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
        // Counted by a hash of the word's bytes first (one 8-byte key, not a hash of a slice element by
        // element: the language server counts a whole novel per keystroke); a String only per distinct word.
        var distinct: [UInt64: (start: Int, end: Int, count: Int)] = [:]
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
                var h = WordHash.add(WordHash.offset, c)
                while j < n {
                    let d = p[j]
                    if d >= 97 && d <= 122 || d >= 0x80 { h = WordHash.add(h, d); j += 1; continue }
                    if d >= 65 && d <= 90 || d >= 48 && d <= 57 || d == 95 { plain = false; j += 1; continue }
                    break
                }
                if plain, j - i >= 2, j - i <= 40 {
                    // The length too: two words of one hash would also need one length to be mixed up.
                    let key = h ^ (UInt64(j - i) << 56)
                    if let seen = distinct[key] {
                        distinct[key] = (seen.start, seen.end, seen.count + 1)
                    } else {
                        distinct[key] = (i, j, 1)
                    }
                }
                i = j
            }
        }
        for (_, word) in distinct {
            counts[String(decoding: bytes[word.start..<word.end], as: UTF8.self).lowercased(), default: 0] += word.count
        }
    }

    /// Reads a project's dictionary and counts capitalised words across its documents (the
    /// watcher's rules: hidden folders, `node_modules` and `ignore` globs skipped; files over
    /// `maxFileBytes` left out). Unreadable files are skipped silently: this only widens what is accepted.
    public static func scan(project: PathBytes, ignore: [String] = [], maxFileBytes: Int = 10 << 20) -> ProjectWords {
        scan(project: project, walk: walkDocuments(project: project, ignore: ignore), maxFileBytes: maxFileBytes)
    }

    /// The documents whose names count (none when `project` has no `.tk/` folder: `check notes.md` in
    /// a folder that is no project must not walk, say, the whole home folder).
    static func walkDocuments(project: PathBytes, ignore: [String]) -> [(path: PathBytes, stat: FileStat)] {
        guard FileSystem.lstatIfExists(project.appending(".tk"))?.kind == .directory else { return [] }
        return DirectoryWalker.walk(root: project, directory: project, filter: PathFilter(ignore: ignore)).documents
    }

    static func scan(project: PathBytes, walk documents: [(path: PathBytes, stat: FileStat)], maxFileBytes: Int) -> ProjectWords {
        var words = ProjectWords()
        if let bytes = try? FileSystem.read(project.appending(dictionaryFile), limit: 8 << 20) {
            words.dictionary = parseDictionary(bytes)
        }
        guard !documents.isEmpty else { return words }
        var counts: [String: Int] = [:]
        let walk = (documents: documents, problems: [String]())
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

    /// The project's words as its files say now, with `scan`'s result: the folder is walked (one
    /// `lstat` a document) and only documents added or changed since the last call (size, modification
    /// time) are read again; the dictionary is re-read when it changed. Every surface (the agent,
    /// `check`, the language server, `journey set`) reads them here, so a name used a third time counts
    /// for all of them at once.
    public static func current(project: PathBytes, ignore: [String] = [], maxFileBytes: Int = 10 << 20) -> ProjectWords {
        let documents = walkDocuments(project: project, ignore: ignore)
        let dictStat = FileSystem.lstatIfExists(project.appending(dictionaryFile))
        var state = counters.withLock { c in c.removeValue(forKey: project) } ?? NameCounter()
        if state.ignore != ignore || state.maxFileBytes != maxFileBytes {
            state = NameCounter()
            state.ignore = ignore
            state.maxFileBytes = maxFileBytes
        }
        if state.dictionaryStamp != dictStat.map({ [$0.size, $0.mtimeNs] }) {
            state.dictionaryStamp = dictStat.map { [$0.size, $0.mtimeNs] }
            state.dictionary = (try? FileSystem.read(project.appending(dictionaryFile), limit: 8 << 20)).map(parseDictionary) ?? []
        }
        let words = state.update(documents: documents, maxFileBytes: maxFileBytes)
        counters.withLock { c in
            if c.count > 64 { c.removeAll() }
            c[project] = state
        }
        return words
    }

    private static let counters = Mutex<[PathBytes: NameCounter]>([:])

    /// The capitalised-word counts of a project's documents, kept per document (as word ids) so that
    /// a change reads one document, not the project.
    private struct NameCounter: Sendable {
        struct Entry: Sendable {
            var size: Int64
            var mtimeNs: Int64
            var read: Int
            var counts: [(UInt32, UInt32)]
        }
        var ignore: [String] = []
        var maxFileBytes = -1
        var dictionaryStamp: [Int64]?
        var dictionary: Set<String> = []
        var ids: [String: UInt32] = [:]
        var spelled: [String] = []
        var files: [PathBytes: Entry] = [:]

        /// Brings the counts up to `documents` (as `scan` reads them: in path order, within the budget).
        mutating func update(documents: [(path: PathBytes, stat: FileStat)], maxFileBytes: Int) -> ProjectWords {
            var words = ProjectWords(dictionary: dictionary)
            guard !documents.isEmpty else { files = [:]; return words }
            var kept: [PathBytes: Entry] = [:]
            var totals = [UInt32](repeating: 0, count: spelled.count)
            var budget = ProjectWords.scanBudgetBytes
            for (path, stat) in documents where stat.size <= Int64(maxFileBytes) {
                guard budget > 0 else { break }
                var entry: Entry
                if let hit = files[path], hit.size == stat.size, hit.mtimeNs == stat.mtimeNs {
                    entry = hit
                } else {
                    guard let bytes = try? FileSystem.read(path, limit: maxFileBytes) else { continue }
                    var counts: [String: Int] = [:]
                    ProjectWords.countCapitalised(bytes, into: &counts)
                    entry = Entry(size: stat.size, mtimeNs: stat.mtimeNs, read: bytes.count, counts: [])
                    entry.counts.reserveCapacity(counts.count)
                    for (w, n) in counts {
                        let id: UInt32
                        if let known = ids[w] { id = known } else {
                            id = UInt32(spelled.count)
                            ids[w] = id
                            spelled.append(w)
                            totals.append(0)
                        }
                        entry.counts.append((id, UInt32(clamping: n)))
                    }
                }
                budget -= entry.read
                for (id, n) in entry.counts { totals[Int(id)] &+= n }
                kept[path] = entry
            }
            files = kept
            for (id, n) in totals.enumerated() where n >= UInt32(ProjectWords.nameThreshold) { words.names.insert(spelled[id]) }
            return words
        }
    }

    /// A digest of the words (for the derivation key): the same sets give the same digest.
    public var digest: String {
        var text = "d"
        for w in dictionary.sorted() { text += "\n" + w }
        text += "\nn"
        for w in names.sorted() { text += "\n" + w }
        return String(SHA256Digest.hex(Array(text.utf8)).prefix(16))
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
