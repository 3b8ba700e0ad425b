import Foundation

/// The compiled word table of a dictionary, kept in a file so that a process reads it (a `pread` a section)
/// instead of expanding the `.dic` again.
///
/// One file per dictionary under `<data>/cache/spelling/` when `TK_DATA_DIR` is set, else
/// `$XDG_CACHE_HOME/tk-agent/spelling/` (`~/.cache/tk-agent/spelling/`). The file is a run of
/// native 64-bit words: magic, format version, its own length in words, the key (the `.aff` and `.dic`
/// paths, sizes, modification times and inodes), the sections, and a checksum of all before it. A file
/// whose magic, version, length, checksum or key does not match is rebuilt, never trusted. Written
/// 0600 by write-temp-then-rename. A location that cannot be written means no table at all (Hunspell
/// answers, as it costs less than building the table in every process), never an error.
enum WordTableCache {
    static let magic: UInt64 = 0x314C_4C45_5053_4B54   // "TKSPELL1", little-endian
    /// Bump when the table's content or layout changes.
    static let version: UInt64 = 3
    /// A cache larger than this is not read (a corrupt length).
    static let maxBytes = 256 << 20

    /// The folder for the cache files of this environment.
    static func directory(environment env: [String: String]) -> String {
        func nonEmpty(_ k: String) -> String? { env[k].flatMap { $0.isEmpty ? nil : $0 } }
        if let data = nonEmpty("TK_DATA_DIR") { return FileSystem.absolute(data).display + "/cache/spelling" }
        let home = nonEmpty("HOME") ?? NSHomeDirectory()
        return FileSystem.absolute(nonEmpty("XDG_CACHE_HOME") ?? home + "/.cache").display + "/tk-agent/spelling"
    }

    /// What the cache of `aff` + `dic` must say it was built from (nil when a file cannot be stat'ed).
    static func key(aff: String, dic: String) -> [UInt8]? {
        var out = "tk-agent word table v\(version)\n"
        for p in [aff, dic] {
            guard let st = TreeWatcher.statFollowing(PathBytes(p)) else { return nil }
            out += "\(p)\t\(st.size)\t\(st.mtimeNs)\t\(st.ctimeNs)\t\(st.inode)\t\(st.device)\n"
        }
        return Array(out.utf8)
    }

    /// The cache file of a dictionary: its language and a hash of its paths (two dictionaries of one
    /// language in different folders get two files).
    static func file(directory: String, language: String, aff: String, dic: String) -> String {
        var h = WordHash.offset
        for b in (aff + "\n" + dic).utf8 { h = WordHash.add(h, b) }
        let safe = language.filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        return directory + "/" + safe + "-" + String(h, radix: 16) + ".words"
    }

    static func checksum(_ p: UnsafeBufferPointer<UInt64>) -> UInt64 { fold(checksumSeed, p) }

    static let checksumSeed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// `h`, the checksum of the words before `w`, carried over `w`.
    @inline(__always) static func fold(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let x = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
        return x ^ (x >> 32)
    }

    static func fold(_ h: UInt64, _ p: UnsafeBufferPointer<UInt64>) -> UInt64 {
        var h = h
        for w in p { h = fold(h, w) }
        return h
    }

    // MARK: Writing

    static func encode(_ t: WordTable, key: [UInt8]) -> [UInt64] {
        var out: [UInt64] = [magic, version, 0]
        func bytes(_ b: [UInt8]) {
            out.append(UInt64(b.count))
            var i = 0
            while i < b.count {
                var w: UInt64 = 0
                for k in 0..<8 where i + k < b.count { w |= UInt64(b[i + k]) << (8 * UInt64(k)) }
                out.append(w)
                i += 8
            }
        }
        func words(_ a: [UInt64]) {
            out.append(UInt64(a.count))
            out.append(contentsOf: a)
        }
        bytes(key)
        words(t.words.slots)
        words(t.noSuggest.slots)
        words(t.upcase.slots)
        words(t.stems.stemSlots)
        out.append(UInt64(t.stems.count))
        var compound = "\(t.compound.minLength)\n" + t.compound.rules.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ") + "\n"
        for (w, f) in t.compound.parts.sorted(by: { $0.key < $1.key }) {
            compound += f.map { String($0, radix: 16) }.joined(separator: ",") + "\t" + w + "\n"
        }
        bytes(Array(compound.utf8))
        out[2] = UInt64(out.count + 1)
        let sum = out.withUnsafeBufferPointer { checksum($0) }
        out.append(sum)
        return out
    }

    /// Writes the table (0600, temp file then rename). Returns false when it could not (no cache).
    @discardableResult
    static func save(_ t: WordTable, to path: String, key: [UInt8]) -> Bool {
        let words = encode(t, key: key)
        let bytes = words.withUnsafeBytes { Array($0) }
        let p = PathBytes(path)
        do {
            try FileSystem.makeDirectories(p.parent, mode: 0o700)
            try FileSystem.writeAtomically(bytes, to: p, mode: 0o600, durable: false)
            return true
        } catch {
            return false
        }
    }

    // MARK: Reading

    /// The table in the cache file at `path` when it is a whole, uncorrupted cache built from `key`;
    /// nil when it is missing, unreadable, too large, not a whole number of words, or does not match.
    /// Each section is read (`pread`) straight into the array that keeps it, the checksum folded in
    /// as it comes: reading the file whole and then copying its sections out touched twice the memory
    /// (en_US: 3 MB), a tenth of a `check`'s page faults.
    static func read(_ path: String, key: [UInt8]) -> WordTable? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 64, st.st_size <= maxBytes, st.st_size % 8 == 0 else { return nil }
        var r = Reader(fd: fd, count: Int(st.st_size) / 8)
        // Every section is read and the checksum checked before any of it is taken for a table.
        guard r.word() == magic, r.word() == version, r.word() == UInt64(r.count),
              let storedKey = r.bytes(), storedKey == key,
              let wordSlots = r.section(), let noSuggestSlots = r.section(), let upcaseSlots = r.section(),
              let stemSlots = r.section(), let stemCount = r.word(), let text = r.bytes(), r.checksumMatches(),
              let ws = HashSlots(slots: wordSlots), let ns = HashSlots(slots: noSuggestSlots), let up = HashSlots(slots: upcaseSlots),
              let stems = StemTable(slots: stemSlots, count: Int(truncatingIfNeeded: stemCount)),
              let compound = parseCompound(text) else { return nil }
        return WordTable(words: ws, noSuggest: ns, upcase: up, stems: stems, compound: compound)
    }

    /// The cache file read word by word and section by section, in order, with the checksum of what
    /// was read so far. Every length is checked to fit before the checksum (the last word) before
    /// anything is allocated for it.
    private struct Reader {
        let fd: Int32
        /// Words in the file.
        let count: Int
        /// The next word to read.
        var at = 0
        var sum = WordTableCache.checksumSeed
        /// The checksum's place.
        var end: Int { count - 1 }

        init(fd: Int32, count: Int) { self.fd = fd; self.count = count }

        /// `n` words from `at` into `into` (false: the file ended early or could not be read).
        private func read(_ n: Int, into p: UnsafeMutableRawPointer) -> Bool {
            let size = n * 8
            var done = 0
            while done < size {
                let k = pread(fd, p + done, size - done, off_t((at * 8) + done))
                if k < 0 && errno == EINTR { continue }
                if k <= 0 { return false }
                done += k
            }
            return true
        }

        /// The next word before the checksum.
        mutating func word() -> UInt64? {
            guard at < end else { return nil }
            var w: UInt64 = 0
            guard read(1, into: &w) else { return nil }
            at += 1
            sum = WordTableCache.fold(sum, w)
            return w
        }

        /// The next `n` words, all before the checksum.
        mutating func words(_ n: Int) -> [UInt64]? {
            guard n >= 0, at + n <= end else { return nil }
            if n == 0 { return [] }
            var ok = false
            let out = [UInt64](unsafeUninitializedCapacity: n) { buf, initialized in
                guard let base = buf.baseAddress else { initialized = 0; return }
                ok = read(n, into: UnsafeMutableRawPointer(base))
                initialized = ok ? n : 0
            }
            guard ok else { return nil }
            at += n
            sum = out.withUnsafeBufferPointer { WordTableCache.fold(sum, $0) }
            return out
        }

        /// A section's length (in words, or in bytes with `perWord` 8) that fits before the checksum.
        private mutating func length(perWord: UInt64 = 1) -> Int? {
            guard let n = word(), n <= UInt64(end - at) * perWord else { return nil }
            return Int(n)
        }

        /// A section of words: its length, then the words.
        mutating func section() -> [UInt64]? {
            guard let n = length() else { return nil }
            return words(n)
        }

        /// A section of bytes: their count, then the bytes packed eight a word, little-endian.
        mutating func bytes() -> [UInt8]? {
            guard let n = length(perWord: 8), let packed = words((n + 7) / 8) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(n)
            for k in 0..<n { out.append(UInt8(truncatingIfNeeded: packed[k / 8] >> (8 * UInt64(k % 8)))) }
            return out
        }

        /// Whether everything before the checksum has been read and the checksum matches it.
        mutating func checksumMatches() -> Bool {
            guard at == end else { return false }
            var w: UInt64 = 0
            guard read(1, into: &w) else { return false }
            return w == sum
        }
    }

    private static func parseCompound(_ text: [UInt8]) -> WordTable.Compound? {
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, let min = Int(lines[0]), min >= 1 else { return nil }
        let rules = lines[1].split(separator: " ").map { Array($0.utf8) }
        var parts: [String: [UInt8]] = [:]
        for l in lines.dropFirst(2) where !l.isEmpty {
            let f = l.split(separator: "\t", maxSplits: 1)
            guard f.count == 2 else { return nil }
            var flags: [UInt8] = []
            for x in f[0].split(separator: ",") {
                guard let b = UInt8(x, radix: 16) else { return nil }
                flags.append(b)
            }
            parts[String(f[1]), default: []] += flags
        }
        return WordTable.Compound(rules: rules, minLength: min, parts: parts)
    }

    /// The table of a dictionary: from the cache when it is valid, else built from the files (and
    /// the cache written). Nil when the `.aff` uses what the table does not model, or a file cannot be read.
    static func table(language: String, aff: String, dic: String, directory: String?) -> (table: WordTable?, built: Bool) {
        let key = key(aff: aff, dic: dic)
        let path = directory.map { file(directory: $0, language: language, aff: aff, dic: dic) }
        if let key, let path, let t = read(path, key: key) { return (t, false) }
        // Building costs more than Hunspell_create (~0.1 s against ~30 ms for en_US): only worth it
        // when the next processes can read what this one builds.
        guard let key, let directory, let path,
              let affBytes = try? FileSystem.read(PathBytes(aff), limit: 16 << 20),
              case .rules(let rules) = AffixRules.parse(affBytes), writable(directory),
              let dicBytes = try? FileSystem.read(PathBytes(dic), limit: 64 << 20) else { return (nil, false) }
        let t = WordTable.build(rules: rules, dic: dicBytes)
        // The key after the read: a dictionary changed meanwhile gets a key that no longer matches.
        if Self.key(aff: aff, dic: dic) == key { save(t, to: path, key: key) }
        return (t, true)
    }

    /// Whether `directory` exists (created 0700 when missing) and this process may write there.
    static func writable(_ directory: String) -> Bool {
        guard (try? FileSystem.makeDirectories(PathBytes(directory), mode: 0o700)) != nil else { return false }
        return access(directory, W_OK) == 0
    }
}
