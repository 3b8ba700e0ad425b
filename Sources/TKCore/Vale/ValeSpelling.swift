import Foundation

/// A `spelling` rule (and `Vale.Spelling`) as Vale's `check/spelling.go` runs it: the block's words
/// (Vale's word tokenizer), less those a filter matches, checked against Hunspell dictionaries and
/// word lists. The dictionaries are read through `Speller` (the system's `en_US` stands in for the
/// `en_US-web` Vale embeds).
public struct ValeSpellCheck: Sendable {
    var spellers: [Speller]
    /// Words of the `ignore` lists (`config/ignore/**/*.txt` for `Vale.Spelling`): exact, or lowercase.
    var words: Set<String>
    /// A word any of these matches (anywhere in it) is not checked.
    var filters: [ValeRegex]

    /// Vale's default filters (camel case, all capitals, anything but ASCII letters, `_` and `'`).
    static let defaultFilters: [ValeRegex] = ["[A-Z]{1}[a-z]+[A-Z]+\\w+", "[A-Z]+$", "[^a-zA-Z_']"].compactMap { try? ValeRegex($0) }

    func accepts(_ word: String) -> Bool {
        if words.contains(word) || words.contains(word.lowercased()) { return true }
        // Vale looks a word up whole: Hunspell's checking of a hyphenated word part by part is not its.
        if word.contains("-") { return false }
        return spellers.contains { $0.isCorrect(word) }
    }

    /// The words to check in a block's text: Vale's `IterTokenizer` (curly quotes made straight,
    /// split at white space, leading `$ ( " [ '` and trailing `, ) " ] ! ; . ? : '` peeled off one
    /// by one, tokens without a letter dropped; abbreviations such as `e.g.` and `Mr.` kept whole).
    static func tokenize(_ text: String) -> [String] {
        let clean = sanitize(text)
        var out: [String] = []
        var run = String.UnicodeScalarView()
        for c in clean.unicodeScalars {
            if c.properties.isWhitespace {
                if !run.isEmpty { split(String(run), into: &out); run = String.UnicodeScalarView() }
            } else { run.append(c) }
        }
        if !run.isEmpty { split(String(run), into: &out) }
        return out
    }

    static func sanitize(_ s: String) -> String {
        var t = s
        for (a, b) in [("\u{201C}", "\""), ("\u{201D}", "\""), ("\u{2018}", "'"), ("\u{2019}", "'"), ("&rsquo;", "'")] where t.contains(a) {
            t = t.replacingOccurrences(of: a, with: b)
        }
        return t
    }

    static let special = try? ValeRegex("^(?:[A-Za-z]\\.){2,}$|^[A-Z][a-z]{1,2}\\.$")
    static let prefixes: Set<Unicode.Scalar> = ["$", "(", "\"", "[", "'"]
    static let suffixes: Set<Unicode.Scalar> = [",", ")", "\"", "]", "!", ";", ".", "?", ":", "'"]

    static func split(_ token: String, into out: inout [String]) {
        var t = Substring(token)
        var last = 0
        func add(_ s: Substring) { if s.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) { out.append(String(s)) } }
        while !t.isEmpty, t.unicodeScalars.count != last {
            if special?.isMatch(String(t)) == true { add(t); break }
            last = t.unicodeScalars.count
            let sc = t.unicodeScalars
            if sc.count > 1, let f = sc.first, prefixes.contains(f) { t = Substring(sc.dropFirst()) }
            else if sc.count > 1, let l = sc.last, suffixes.contains(l) { t = Substring(sc.dropLast()) }
            else { add(t) }
        }
    }
}

extension ValeStyles {
    /// Vale's default dictionary: the system's Hunspell `en_US`.
    static func defaultSpeller() -> Result<Speller, SpellerProblem> { Speller.named("en_US") }

    /// The Hunspell dictionaries (`NAME.dic` beside `NAME.aff`) of a folder, by name.
    static func dictionaries(in dir: String, names: [String]? = nil, hasher: inout FNV64) -> [Speller] {
        let fm = FileManager.default
        let wanted = names ?? ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".dic") }.sorted().map { String($0.dropLast(4)) }
        var out: [Speller] = []
        for name in wanted {
            let dic = (dir as NSString).appendingPathComponent(name + ".dic"), aff = (dir as NSString).appendingPathComponent(name + ".aff")
            guard fm.isReadableFile(atPath: dic), fm.isReadableFile(atPath: aff) else { continue }
            if let d = fm.contents(atPath: dic) { hasher.add(d) }
            if let a = fm.contents(atPath: aff) { hasher.add(a) }
            out.append(Speller(language: name, aff: aff, dic: dic, cacheDirectory: nil))
        }
        return out
    }

    /// The words of a word list file (one a line; `#` lines skipped).
    static func wordList(_ path: String, hasher: inout FNV64) -> [String] {
        guard let d = FileManager.default.contents(atPath: path) else { return [] }
        hasher.add(d)
        return String(decoding: d, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "#" }
    }

    /// `<StylesPath>/config/ignore/**/*.txt`.
    static func ignoreFiles(_ stylesPath: String) -> [String] {
        let root = (stylesPath as NSString).appendingPathComponent("config/ignore")
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            if rel.hasSuffix(".txt") { out.append((root as NSString).appendingPathComponent(rel)) }
        }
        return out.sorted()
    }

    /// The dictionaries and word lists of a `spelling` rule (`m` its YAML), or why it cannot run.
    static func spellCheck(name: String, _ m: [String: Any], cfg: ValeConfiguration, hasher: inout FNV64) -> Result<ValeSpellCheck, ValeRuleError> {
        let sp = cfg.stylesPath ?? ""
        let fm = FileManager.default
        var spellers: [Speller] = []
        var useDefault = bool(m["append"])
        var words: [String] = []
        func abs(_ p: String, _ base: String) -> String { p.hasPrefix("/") ? p : (base as NSString).appendingPathComponent(p) }
        if name == "Vale.Spelling" {
            useDefault = true
            if !sp.isEmpty {
                spellers += dictionaries(in: (sp as NSString).appendingPathComponent("config/dictionaries"), hasher: &hasher)
                for f in ignoreFiles(sp) { words += wordList(f, hasher: &hasher) }
            }
        } else {
            let aff = str(m["aff"]) ?? "", dic = str(m["dic"]) ?? ""
            if !aff.isEmpty, !dic.isEmpty, fm.isReadableFile(atPath: abs(aff, sp)), fm.isReadableFile(atPath: abs(dic, sp)) {
                spellers.append(Speller(language: name, aff: abs(aff, sp), dic: abs(dic, sp), cacheDirectory: nil))
            } else {
                let names = strings(m["dictionaries"])
                if let dp = str(m["dicpath"]), !dp.isEmpty {
                    let candidates = [dp, abs(dp, sp), abs(dp, fm.currentDirectoryPath)]
                    guard let dir = candidates.first(where: { var d: ObjCBool = false; return fm.fileExists(atPath: $0, isDirectory: &d) && d.boolValue }) else {
                        return .failure(.unresolvedDicpath(dp))
                    }
                    if !names.isEmpty {
                        spellers += dictionaries(in: dir, names: names, hasher: &hasher)
                        if spellers.count < names.count { return .failure(.missingDictionary(names, folder: dir)) }
                    }
                } else if !names.isEmpty {
                    return .failure(.needs(what: "'dictionaries'", key: "a 'dicpath'"))
                }
                if spellers.isEmpty { useDefault = true }
            }
            for ig in strings(m["ignore"]) {
                for p in [abs(ig, fm.currentDirectoryPath), abs(ig, sp), abs(ig, (sp as NSString).appendingPathComponent("config/ignore"))] where fm.isReadableFile(atPath: p) {
                    words += wordList(p, hasher: &hasher)
                }
            }
        }
        if useDefault {
            switch defaultSpeller() {
            case .success(let s): spellers.insert(s, at: 0)
            case .failure(let p): if spellers.isEmpty { return .failure(.dictionary(p)) }
            }
        }
        var filters: [ValeRegex] = []
        for f in strings(m["filters"]) {
            let re: ValeRegex
            do { re = try ValeRegex(f) } catch { return .failure(.filter(f, cause: error)) }
            filters.append(re)
        }
        if !bool(m["custom"]) { filters += ValeSpellCheck.defaultFilters }
        return .success(ValeSpellCheck(spellers: spellers, words: Set(words), filters: filters))
    }
}
