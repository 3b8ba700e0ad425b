import Foundation
import Synchronization
import Yams

/// One Vale rule compiled for matching.
public struct ValeRule: Sendable {
    public enum Kind: Sendable {
        case existence(pattern: ValeRegex)
        case substitution(pattern: ValeRegex, terms: [String], replacements: [String], capitalize: Bool)
        case occurrence(pattern: ValeRegex, min: Int, max: Int)
        case repetition(pattern: ValeRegex, max: Int, alpha: Bool, ignorecase: Bool)
        case consistency(steps: [(pattern: ValeRegex, groups: [Int: String], subs: [String])])
        case capitalization(match: String, regex: ValeRegex?, exceptions: [String], threshold: Double, style: String, indicators: [String], patterns: ValeCasePatterns)
        case conditional(first: ValeRegex, second: ValeRegex)
        case metric(formula: String, condition: String)
        case spelling(ValeSpellCheck)
        case sequence(ValeSequence)
        case readability(metrics: [String], grade: Double)
        case script(Tengo.Program)
    }
    public var name: String
    public var extends: String
    public var kind: Kind
    public var message: String
    public var level: String
    public var link: String
    public var limit: Int
    public var scope: ValeScope
    public var ignorecase: Bool
    public var exceptRe: ValeRegex?
    public var action: String
    public var actionParams: [String]

    /// The patterns the rule runs on a block's text.
    var patterns: [ValeRegex] {
        switch kind {
        case .existence(let p), .substitution(let p, _, _, _), .occurrence(let p, _, _), .repetition(let p, _, _, _): return [p]
        case .consistency(let steps): return steps.map(\.pattern)
        case .conditional(let a, let b): return [a, b]
        case .capitalization, .metric, .spelling, .sequence, .readability, .script: return []
        }
    }
}

/// A rule's `scope`: alternatives of `&`-joined selectors, each maybe negated with `~`.
public struct ValeScope: Sendable {
    struct Selector: Sendable { var parts: [String]; var negated: Bool }
    var options: [[Selector]]

    init(_ values: [String]) {
        options = values.map { v in
            v.split(separator: "&", omittingEmptySubsequences: false).map { part in
                var s = VB.trimmedSpaces(part)
                var neg = false
                if s.hasPrefix("~") { s.removeFirst(); neg = true }
                return Selector(parts: s.split(separator: ".").map(String.init), negated: neg)
            }
        }
    }

    /// Vale's `Scope.Matches` on a block scope such as `text.heading.h1.md`.
    func matches(_ blockScope: [String]) -> Bool {
        for sels in options {
            var ok = true
            for part in sels {
                let contains = part.parts.allSatisfy { blockScope.contains($0) }
                if part.negated && !contains {
                    if blockScope.contains("raw") || blockScope.contains("summary") { ok = false; break }
                } else if (!part.negated && !contains) || (part.negated && contains) {
                    ok = false; break
                }
            }
            if ok { return true }
        }
        return false
    }

    var bases: Set<String> { Set(options.flatMap { $0.compactMap { $0.parts.first } }) }
}

/// The styles of a configuration, loaded and compiled once.
public struct ValeStyles: Sendable {
    public var rules: [String: ValeRule] = [:]
    /// Rule names in a stable order (style, then file name).
    public var order: [String] = []
    /// `Style.Rule: reason` for rules that were not loaded.
    public var skipped: [String] = []
    /// Scripts that failed while linting (one line per rule and failure, for stderr or `status`).
    let scriptFailures = ValeScriptFailures()
    public var problems: [String] = []
    public var styleNames: [String] = []
    public var acceptedTokens: [String] = []
    public var rejectedTokens: [String] = []
    /// Digest of the ini and every rule file read.
    public var digest: String = ""
    /// The rules' literals, to skip a pattern in a block that cannot match it.
    var prefilter = ValePrefilter()

    static let extensionPoints: Set<String> = ["capitalization", "conditional", "consistency", "existence", "occurrence",
                                               "repetition", "substitution", "readability", "spelling", "sequence", "metric", "script"]

    /// Loads what `cfg` names from its `StylesPath`.
    public static func load(_ cfg: ValeConfiguration) -> ValeStyles {
        var out = ValeStyles()
        var hasher = FNV64()
        if let d = try? Data(contentsOf: URL(fileURLWithPath: cfg.path)) { hasher.add(d) }
        let fm = FileManager.default
        // Vocabularies.
        if let sp = cfg.stylesPath {
            for v in cfg.vocab {
                let dirs = ["config/vocabularies/\(v)", "Vocab/\(v)"].map { (sp as NSString).appendingPathComponent($0) }
                guard let dir = dirs.first(where: { fm.fileExists(atPath: $0) }) else {
                    out.problems.append("\(cfg.path): vocabulary '\(v)' not found under \(sp)/config/vocabularies"); continue
                }
                for (file, accept) in [("accept.txt", true), ("reject.txt", false)] {
                    let p = (dir as NSString).appendingPathComponent(file)
                    guard let d = try? Data(contentsOf: URL(fileURLWithPath: p)) else { continue }
                    hasher.add(d)
                    for line in String(decoding: d, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                        let w = VB.trimmedSpaces(line)
                        if w.isEmpty || w.hasPrefix("# ") { continue }
                        if accept { out.acceptedTokens.append(w) } else { out.rejectedTokens.append(w) }
                    }
                }
            }
        }
        var files: [(name: String, path: String)] = []
        var loadedStyles = Set<String>()
        if let sp = cfg.stylesPath {
            for style in cfg.styles where style != "Vale" {
                let dir = (sp as NSString).appendingPathComponent(style)
                guard let names = try? fm.contentsOfDirectory(atPath: dir) else {
                    out.problems.append("\(cfg.path): style '\(style)' does not exist on StylesPath"); continue
                }
                loadedStyles.insert(style)
                out.styleNames.append(style)
                for n in names.sorted() where n.hasSuffix(".yml") {
                    files.append(("\(style).\(String(n.dropLast(4)))", (dir as NSString).appendingPathComponent(n)))
                }
            }
            for named in cfg.namedRules {
                let parts = named.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2, parts[0] != "Vale", !loadedStyles.contains(parts[0]),
                      !files.contains(where: { $0.name == named }) else { continue }
                let p = (sp as NSString).appendingPathComponent("\(parts[0])/\(parts[1]).yml")
                if fm.fileExists(atPath: p) { files.append((named, p)) }
            }
        }
        // Each rule file is read, parsed and compiled on its own, on every core; then taken in, in
        // order, with the bytes it hashed (the digest is the same as one file after another).
        enum Outcome { case compiled(Compiled), failed(String) }
        let accepted = out.acceptedTokens
        let ruleFiles = files
        // By file; nil: it could not be read.
        let results = Mutex<[(outcome: Outcome, text: [UInt8], hashed: [[UInt8]], literals: [ObjectIdentifier: ValePrefilter.Literals])?]>(
            Array(repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            let (name, path) = ruleFiles[i]
            guard let d = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return }
            let bytes = [UInt8](d)
            var local = FNV64(logging: true)
            let outcome: Outcome
            do {
                if let any = try ValeYAML.load(String(decoding: bytes, as: UTF8.self)), let map = any as? [String: Any] {
                    outcome = .compiled(try compile(name: name, map, cfg: cfg, accepted: accepted, hasher: &local))
                } else {
                    outcome = .failed("not a YAML mapping")
                }
            } catch {
                outcome = .failed(Self.describe(error))
            }
            let hashed = local.log
            // The prefilter's reading of the rule's patterns, here on the compiling thread.
            var literals: [ObjectIdentifier: ValePrefilter.Literals] = [:]
            if case .compiled(.rule(let rule)) = outcome {
                for re in rule.patterns { literals[ObjectIdentifier(re)] = ValePrefilter.Literals(re) }
            }
            results.withLock { $0[i] = (outcome, bytes, hashed, literals) }
        }
        var literals: [ObjectIdentifier: ValePrefilter.Literals] = [:]
        for (i, result) in results.withLock({ $0 }).enumerated() {
            let (name, path) = files[i]
            guard let r = result else { out.problems.append("\(path): cannot read"); continue }
            hasher.add(Array(name.utf8)); hasher.add(r.text)
            literals.merge(r.literals) { a, _ in a }
            for chunk in r.hashed { hasher.add(chunk) }
            switch r.outcome {
            case .compiled(.rule(let rule)): out.rules[name] = rule; out.order.append(name)
            case .compiled(.skipped(let why)): out.skipped.append("\(name): \(why)")
            case .failed(let why): out.problems.append("\(path): \(why); rule skipped")
            }
        }
        // The built-in style.
        let needsVale = cfg.styles.contains("Vale") || cfg.namedRules.contains { $0.hasPrefix("Vale.") }
        if needsVale {
            out.styleNames.append("Vale")
            var rep: [String: Any] = ["extends": "repetition", "message": "'%s' is repeated!", "level": "error",
                                      "alpha": true, "tokens": ["[^\\s]+"]]
            rep["action"] = ["name": "edit", "params": ["truncate", " "]]
            if let r = try? compile(name: "Vale.Repetition", rep, cfg: cfg, accepted: out.acceptedTokens, hasher: &hasher), case .rule(let rule) = r {
                out.rules["Vale.Repetition"] = rule; out.order.append("Vale.Repetition")
            }
            let spelling: [String: Any] = ["extends": "spelling", "message": "Did you really mean '%s'?", "level": "error", "scope": "text"]
            do {
                if case .rule(let rule) = try compile(name: "Vale.Spelling", spelling, cfg: cfg, accepted: out.acceptedTokens, hasher: &hasher) {
                    out.rules["Vale.Spelling"] = rule; out.order.append("Vale.Spelling")
                }
            } catch {
                out.problems.append("\(cfg.path): Vale.Spelling: \(describe(error)); rule skipped")
            }
            if !out.acceptedTokens.isEmpty {
                var swap: [String: String] = [:]
                for t in out.acceptedTokens where isPhrase(t) { swap[t.lowercased()] = t }
                let terms: [String: Any] = ["extends": "substitution", "message": "Use '%s' instead of '%s'.", "level": "error",
                                            "ignorecase": true, "swap": swap, "vocab": false]
                if let r = try? compile(name: "Vale.Terms", terms, cfg: cfg, accepted: out.acceptedTokens, hasher: &hasher), case .rule(let rule) = r {
                    out.rules["Vale.Terms"] = rule; out.order.append("Vale.Terms")
                }
            }
            if !out.rejectedTokens.isEmpty {
                let avoid: [String: Any] = ["extends": "existence", "message": "Avoid using '%s'.", "level": "error",
                                            "ignorecase": false, "tokens": out.rejectedTokens]
                if let r = try? compile(name: "Vale.Avoid", avoid, cfg: cfg, accepted: out.acceptedTokens, hasher: &hasher), case .rule(let rule) = r {
                    out.rules["Vale.Avoid"] = rule; out.order.append("Vale.Avoid")
                }
            }
        }
        out.digest = hasher.hex
        out.prefilter = ValePrefilter(out.order.compactMap { out.rules[$0] }.flatMap(\.patterns), read: literals)
        return out
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? ValeRuleError { return e.description }
        return String(describing: error).split(separator: "\n").first.map(String.init) ?? "invalid"
    }

    enum Compiled { case rule(ValeRule), skipped(String) }

    static func isPhrase(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0 == " " || $0.properties.numericType == .decimal || $0 == "-" }
    }

    // MARK: - Compilation

    static func str(_ v: Any?) -> String? {
        switch v {
        case let s as String: return s
        case let i as Int: return String(i)
        case let d as Double: return String(d)
        case let b as Bool: return b ? "true" : "false"
        default: return nil
        }
    }
    static func bool(_ v: Any?) -> Bool {
        switch v {
        case let b as Bool: return b
        case let s as String: return ["true", "yes", "1", "on"].contains(s.lowercased())
        case let i as Int: return i != 0
        default: return false
        }
    }
    static func int(_ v: Any?) -> Int {
        switch v {
        case let i as Int: return i
        case let d as Double: return Int(d)
        case let s as String: return Int(s) ?? 0
        default: return 0
        }
    }
    static func strings(_ v: Any?) -> [String] {
        switch v {
        case let a as [Any]: return a.compactMap { str($0) }
        case let s as String: return [s]
        default: return []
        }
    }

    static func regex(_ p: String, _ name: String) throws -> ValeRegex {
        do { return try ValeRegex(p) } catch { throw ValeRuleError.pattern(p, cause: error) }
    }

    /// Vale's `updateExceptions`: `(?m)\b(?:(?-i)a|(?-i)b)\b`, longest first.
    static func exceptions(_ list: [String], accepted: [String], vocab: Bool) throws -> ValeRegex? {
        var all = list
        if vocab { all += accepted }
        if all.isEmpty { return nil }
        let sorted = all.enumerated().sorted { a, b in
            a.element.utf8.count != b.element.utf8.count ? a.element.utf8.count > b.element.utf8.count : a.offset < b.offset
        }.map { $0.element.hasPrefix("(?i)") ? $0.element : "(?-i)" + $0.element }
        return try? ValeRegex("(?m)\\b(?:" + sorted.joined(separator: "|") + ")\\b")
    }

    static func makeRegexp(template: String, noCase: Bool, word: Bool, callback: String, append: Bool, tokens: String) -> String {
        var regex = word ? (template.isEmpty ? "(?m)\\b(?:%s)\\b" : template) : "(?m)(?:%s)"
        regex = append ? regex + callback : callback + regex
        if noCase { regex = "(?i)" + regex }
        return VB.replaceAll(regex, "%s", with: tokens)
    }

    static func compile(name: String, _ m: [String: Any], cfg: ValeConfiguration, accepted: [String], hasher: inout FNV64) throws -> Compiled {
        guard let ext = str(m["extends"]) else { throw ValeRuleError.missingKey("extends") }
        guard extensionPoints.contains(ext) else { throw ValeRuleError.notARuleType(ext) }
        guard m["message"] != nil else { throw ValeRuleError.missingKey("message") }
        var level = str(m["level"]) ?? "warning"
        if let l = cfg.ruleLevels[name] { level = l }
        guard ["suggestion", "warning", "error"].contains(level) else { throw ValeRuleError.badLevel(level) }
        var scopes = strings(m["scope"])
        if scopes.isEmpty { scopes = ["text"] }
        let ignorecase = bool(m["ignorecase"])
        let vocab = m["vocab"] == nil ? true : bool(m["vocab"])
        var actionName = "", params: [String] = []
        if let a = m["action"] as? [String: Any] {
            actionName = str(a["name"]) ?? ""
            params = strings(a["params"])
        }
        let exc = strings(m["exceptions"])
        var rule = ValeRule(name: name, extends: ext, kind: .existence(pattern: try regex("x", name)), message: str(m["message"]) ?? "",
                            level: level, link: str(m["link"]) ?? "", limit: int(m["limit"]), scope: ValeScope(scopes),
                            ignorecase: ignorecase, exceptRe: nil, action: actionName, actionParams: params)
        switch ext {
        case "existence":
            rule.exceptRe = try exceptions(exc, accepted: accepted, vocab: vocab)
            let tokens = strings(m["tokens"]).filter { !VB.trimmedSpaces($0).isEmpty }
            let raw = strings(m["raw"]).joined()
            let p = makeRegexp(template: cfg.wordTemplate, noCase: ignorecase, word: !bool(m["nonword"]) && !strings(m["tokens"]).isEmpty,
                               callback: raw, append: bool(m["append"]), tokens: tokens.joined(separator: "|"))
            rule.kind = .existence(pattern: try regex(p, name))
        case "substitution":
            rule.exceptRe = try exceptions(exc, accepted: accepted, vocab: vocab)
            var pairs: [(String, String)] = []
            if let swap = m["swap"] as? [String: Any] {
                for (k, v) in swap { pairs.append((k, str(v) ?? "")) }
            } else if let swap = m["swap"] as? [AnyHashable: Any] {
                for (k, v) in swap { pairs.append((str(k.base) ?? "\(k)", str(v) ?? "")) }
            }
            pairs.sort { a, b in a.0.utf8.count != b.0.utf8.count ? a.0.utf8.count > b.0.utf8.count : a.0 < b.0 }
            let capOpen = try regex("(?<!\\\\)\\((?!\\?)", name)
            var tokens = ""
            for (term, _) in pairs {
                var t = term
                // Vale's `strings.Count`s, on the bytes as Go counts.
                let b = VB.bytes(t)
                if VB.count(b, [40]) != VB.count(b, [40, 63]) + VB.count(b, [92, 40]) {
                    t = capOpen.replace(t, template: "(?:")
                }
                tokens += "(" + t + ")|"
            }
            while tokens.hasSuffix("|") { tokens.removeLast() }
            let p = makeRegexp(template: cfg.wordTemplate, noCase: ignorecase, word: !bool(m["nonword"]), callback: "", append: true, tokens: tokens)
            rule.kind = .substitution(pattern: try regex(p, name), terms: pairs.map { $0.0 }, replacements: pairs.map { $0.1 },
                                      capitalize: bool(m["capitalize"]))
        case "occurrence":
            let p = (ignorecase ? "(?i)" : "") + "(?:" + (str(m["token"]) ?? "") + ")"
            rule.kind = .occurrence(pattern: try regex(p, name), min: int(m["min"]), max: int(m["max"]))
        case "repetition":
            rule.exceptRe = try exceptions(exc, accepted: accepted, vocab: vocab)
            let p = (ignorecase ? "(?i)" : "") + "(" + strings(m["tokens"]).joined(separator: "|") + ")"
            rule.kind = .repetition(pattern: try regex(p, name), max: int(m["max"]), alpha: bool(m["alpha"]), ignorecase: ignorecase)
        case "consistency":
            var steps: [(pattern: ValeRegex, groups: [Int: String], subs: [String])] = []
            var count = 0
            var pairs: [(String, String)] = []
            if let e = m["either"] as? [String: Any] { for (k, v) in e { pairs.append((k, str(v) ?? "")) } }
            else if let e = m["either"] as? [AnyHashable: Any] { for (k, v) in e { pairs.append((str(k.base) ?? "\(k)", str(v) ?? "")) } }
            pairs.sort { $0.0 < $1.0 }
            for (v1, v2) in pairs {
                count += 2
                let subs = ["\(name)#\(count)", "\(name)#\(count + 1)"]
                let inner = "(?<g\(count)>\(v1))|(?<g\(count + 1)>\(v2))"
                let p = makeRegexp(template: cfg.wordTemplate, noCase: ignorecase, word: !bool(m["nonword"]), callback: "", append: true, tokens: inner)
                let re = try regex(p, name)
                // Group numbers of the two named groups: count capture groups before each.
                let g1 = 1 + capturingGroups(in: p, before: "(?<g\(count)>")
                let g2 = 1 + capturingGroups(in: p, before: "(?<g\(count + 1)>")
                steps.append((re, [g1: subs[0], g2: subs[1]], subs))
            }
            rule.kind = .consistency(steps: steps)
        case "capitalization":
            rule.exceptRe = try exceptions(exc, accepted: accepted, vocab: vocab)
            var excList = exc
            if vocab { excList += accepted }
            let match = str(m["match"]) ?? ""
            var re: ValeRegex? = nil
            if !["$title", "$sentence", "$lower", "$upper"].contains(match) { re = try regex(match, name) }
            var th = (m["threshold"] as? Double) ?? Double(int(m["threshold"]))
            if th == 0 { th = 0.8 }
            rule.kind = .capitalization(match: match, regex: re, exceptions: excList, threshold: th, style: str(m["style"]) ?? "AP",
                                        indicators: strings(m["indicators"]),
                                        patterns: ValeCasePatterns(exceptRe: rule.exceptRe, prefix: str(m["prefix"]) ?? ""))
        case "conditional":
            rule.exceptRe = try exceptions(exc, accepted: accepted, vocab: vocab)
            rule.kind = .conditional(first: try regex(str(m["first"]) ?? "", name), second: try regex(str(m["second"]) ?? "", name))
        case "sequence":
            // Always read sentence by sentence, whatever `scope` says (as Vale does).
            rule.kind = .sequence(try ValeSequence(m["tokens"], ignorecase: ignorecase, name: name))
            rule.scope = ValeScope(["sentence"])
        case "metric":
            // A formula over the whole document's counts: read once, on its summary (as Vale does).
            rule.kind = .metric(formula: str(m["formula"]) ?? "", condition: str(m["condition"]) ?? "")
            rule.scope = ValeScope(["summary"])
        case "script":
            guard var source = str(m["script"]), !source.isEmpty else { throw ValeRuleError.missingKey("script") }
            if source.hasSuffix(".tengo") {
                // A script file: under `<StylesPath>/config/scripts` (Vale's `FindConfigAsset`).
                let candidates = [cfg.stylesPath.map { ($0 as NSString).appendingPathComponent("config/scripts/" + source) },
                                  cfg.stylesPath.map { ($0 as NSString).appendingPathComponent(source) }, source].compactMap { $0 }
                guard let file = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }),
                      let d = FileManager.default.contents(atPath: file) else { throw ValeRuleError.missingScript(source) }
                hasher.add(d)
                source = String(decoding: d, as: UTF8.self)
            }
            do { rule.kind = .script(try Tengo.Program(source)) } catch { throw ValeRuleError.script(error) }
        case "readability":
            let metrics = strings(m["metrics"])
            guard !metrics.isEmpty else { throw ValeRuleError.needs(what: "a readability rule", key: "'metrics'") }
            if let unknown = metrics.first(where: { !ValeMetric.readabilityMetrics.contains($0) }) {
                throw ValeRuleError.unknownMetric(unknown)
            }
            rule.kind = .readability(metrics: metrics, grade: (m["grade"] as? Double) ?? Double(int(m["grade"])))
            rule.scope = ValeScope(["summary"])
        case "spelling":
            // Vale's `addExceptions`: the Vocab's accepted terms, case-insensitive, anywhere in the word.
            if !accepted.isEmpty { rule.exceptRe = try? ValeRegex("(?i)" + accepted.joined(separator: "|")) }
            switch spellCheck(name: name, m, cfg: cfg, hasher: &hasher) {
            case .success(let check): rule.kind = .spelling(check)
            case .failure(let e): throw e
            }
        default:
            return .skipped("type '\(ext)' is not supported yet")
        }
        return .rule(rule)
    }

    /// Capturing groups opened before the first occurrence of `marker` in `p`.
    static func capturingGroups(in p: String, before marker: String) -> Int {
        guard let r = p.range(of: marker) else { return 0 }
        let head = Array(p[..<r.lowerBound])
        var n = 0, i = 0, inClass = false
        while i < head.count {
            let c = head[i]
            if c == "\\" { i += 2; continue }
            if inClass { if c == "]" { inClass = false } }
            else if c == "[" { inClass = true }
            else if c == "(" {
                if i + 1 < head.count, head[i + 1] == "?" {
                    if i + 2 < head.count, head[i + 2] == "<", i + 3 < head.count, head[i + 3] != "=", head[i + 3] != "!" { n += 1 }
                } else { n += 1 }
            }
            i += 1
        }
        return n
    }
}

/// Why a Vale rule file cannot be used (it is skipped, with this as its one line).
enum ValeRuleError: Error, CustomStringConvertible {
    case missingKey(String)
    case notARuleType(String)
    case badLevel(String)
    /// A rule type needs a setting it lacks (`what` needs `key`).
    case needs(what: String, key: String)
    case pattern(String, cause: any Error)
    case filter(String, cause: any Error)
    case unknownMetric(String)
    case badToken
    case unresolvedDicpath(String)
    case missingDictionary([String], folder: String)
    case dictionary(SpellerProblem)
    case missingScript(String)
    case script(any Error)

    var description: String {
        switch self {
        case .missingKey(let key): "missing the required '\(key)' key"
        case .notARuleType(let ext): "'extends' must be one of the rule types, not '\(ext)'"
        case .badLevel: "'level' must be suggestion, warning or error"
        case .needs(let what, let key): "\(what) needs \(key)"
        case .pattern(let p, _): "pattern does not compile: \(p.prefix(80))"
        case .filter(let p, _): "filter does not compile: \(p.prefix(80))"
        case .unknownMetric(let m): "unknown readability metric '\(m)' (one of \(ValeMetric.readabilityMetrics.joined(separator: ", ")))"
        case .badToken: "each of 'tokens' must be a mapping (pattern, tag, skip, negate)"
        case .unresolvedDicpath(let dp): "unable to resolve dicpath '\(dp)'"
        case .missingDictionary(let names, let dir): "a dictionary of \(names.joined(separator: ", ")) is not in \(dir)"
        case .dictionary(let problem): problem.message
        case .missingScript(let name): "script '\(name)' not found in StylesPath/config/scripts"
        case .script(let cause): "script does not parse: \(cause)"
        }
    }
}

/// 64-bit FNV-1a, for digests of configuration files.
struct FNV64 {
    var h: UInt64 = 0xcbf29ce484222325
    /// With `logging`, every chunk added, in order: another hasher can take them in later.
    private(set) var log: [[UInt8]] = []
    private var logging = false
    init(logging: Bool = false) { self.logging = logging }
    mutating func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        if logging { log.append(Array(bytes)) }
        for b in bytes { h ^= UInt64(b); h = h &* 0x100000001b3 }
    }
    var hex: String { String(h, radix: 16) }
}

/// The lines of `script` rules that failed while running (a script's error leaves its rule out of
/// that block, as a failing rule must never stop the run); shared by every copy of the styles.
final class ValeScriptFailures: Sendable {
    private let lines = Mutex<[String]>([])
    /// Rules whose script ran out of steps: not run again by this process (each block would cost as much).
    private let stopped = Mutex<Set<String>>([])
    func add(_ line: String) { lines.withLock { if !$0.contains(line) && $0.count < 20 { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
    func stop(_ rule: String) { _ = stopped.withLock { $0.insert(rule) } }
    func isStopped(_ rule: String) -> Bool { stopped.withLock { $0.contains(rule) } }
}
