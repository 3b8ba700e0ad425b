import Foundation

/// The compiled word table of a dictionary, kept in a file so that a process reads it (one `read`)
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

    static func checksum(_ p: UnsafeBufferPointer<UInt64>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for w in p {
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
        }
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

    /// The file's words, read with one `read` into place; nil when missing, unreadable, too large or
    /// not a whole number of words.
    static func readWords(_ path: String) -> [UInt64]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 64, st.st_size <= maxBytes, st.st_size % 8 == 0 else { return nil }
        let size = Int(st.st_size)
        var ok = true
        let words = [UInt64](unsafeUninitializedCapacity: size / 8) { buf, count in
            let raw = UnsafeMutableRawPointer(buf.baseAddress!)
            var done = 0
            while done < size {
                let n = read(fd, raw + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            ok = done == size
            count = ok ? size / 8 : 0
        }
        return ok ? words : nil
    }

    /// The table in `words` when they are a whole, uncorrupted cache built from `key`.
    static func decode(_ words: [UInt64], key: [UInt8]) -> WordTable? {
        let n = words.count
        guard n >= 8, words[0] == magic, words[1] == version, words[2] == UInt64(n) else { return nil }
        let sum = words.withUnsafeBufferPointer { checksum(UnsafeBufferPointer(rebasing: $0[0..<(n - 1)])) }
        guard sum == words[n - 1] else { return nil }
        var i = 3
        let end = n - 1
        /// A section's length (in words, or in bytes with `perWord` 8) that fits before the checksum.
        func count(perWord: UInt64 = 1) -> Int? {
            guard i < end, words[i] <= UInt64(end - i - 1) * perWord else { return nil }
            defer { i += 1 }
            return Int(words[i])
        }
        func section() -> [UInt64]? {
            guard let c = count() else { return nil }
            defer { i += c }
            return Array(words[i..<(i + c)])
        }
        func bytes() -> [UInt8]? {
            guard let c = count(perWord: 8) else { return nil }
            let w = (c + 7) / 8
            guard i + w <= end else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(c)
            for k in 0..<c { out.append(UInt8(truncatingIfNeeded: words[i + k / 8] >> (8 * UInt64(k % 8)))) }
            i += w
            return out
        }
        guard let storedKey = bytes(), storedKey == key,
              let ws = section().flatMap(HashSlots.init(slots:)),
              let ns = section().flatMap(HashSlots.init(slots:)),
              let up = section().flatMap(HashSlots.init(slots:)),
              let stemSlots = section(), i < end else { return nil }
        let stemCount = Int(truncatingIfNeeded: words[i])
        i += 1
        guard let stems = StemTable(slots: stemSlots, count: stemCount), let text = bytes(), i == end,
              let compound = parseCompound(text) else { return nil }
        return WordTable(words: ws, noSuggest: ns, upcase: up, stems: stems, compound: compound)
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
        if let key, let path, let words = readWords(path), let t = decode(words, key: key) { return (t, false) }
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
