import Foundation

/// A project's Vale configuration (`.vale.ini` and its siblings), read as Vale reads it.
public struct ValeConfiguration: Sendable {
    /// Names Vale accepts, in the order it tries them in each folder.
    public static let fileNames = [".vale.ini", "_vale.ini", ".vale", "_vale", "vale.ini"]

    /// The ini file.
    public var path: String
    /// Absolute `StylesPath` (nil: only the built-in `Vale` style).
    public var stylesPath: String?
    /// 0 suggestion, 1 warning, 2 error.
    public var minAlertLevel = 1
    public var vocab: [String] = []
    public var ignoredScopes: [String] = []
    public var skippedScopes: [String] = []
    public var ignoredClasses: [String] = []
    public var wordTemplate = ""
    public var formats: [String: String] = [:]
    /// `[*]` base styles and rule switches.
    public var globalBaseStyles: [String] = []
    public var globalChecks: [String: Bool] = [:]
    /// Sections in file order (other than `[*]`, `[formats]`).
    public var sections: [Section] = []
    /// Rule name → level set in the ini.
    public var ruleLevels: [String: String] = [:]
    /// Every rule named one by one, in file order.
    public var namedRules: [String] = []
    /// `BlockIgnores`/`TokenIgnores` by section label (`*` for the global section).
    public var blockIgnores: [(label: String, patterns: [String])] = []
    public var tokenIgnores: [(label: String, patterns: [String])] = []
    /// Problems worth one line on stderr.
    public var problems: [String] = []

    public struct Section: Sendable {
        public var label: String
        public var glob: ValeGlob
        public var baseStyles: [String]?
        public var checks: [(String, Bool)]
    }

    /// Every style the configuration names.
    public var styles: [String] {
        var out: [String] = []
        for s in globalBaseStyles + sections.flatMap({ $0.baseStyles ?? [] }) where !out.contains(s) { out.append(s) }
        return out
    }

    /// Finds the configuration Vale would use from `folder`: that folder, then its parents.
    public static func find(from folder: String) -> String? {
        var dir = URL(fileURLWithPath: folder).standardizedFileURL.path
        let fm = FileManager.default
        while true {
            for name in fileNames {
                let p = (dir as NSString).appendingPathComponent(name)
                var isDir: ObjCBool = false
                if fm.fileExists(atPath: p, isDirectory: &isDir), !isDir.boolValue { return p }
            }
            let parent = (dir as NSString).deletingLastPathComponent
            if parent == dir || parent.isEmpty { return nil }
            dir = parent
        }
    }

    /// Parses the ini at `path`.
    public static func load(path: String) throws -> ValeConfiguration {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return parse(String(decoding: data, as: UTF8.self), path: path)
    }

    /// Parses ini `text` (Vale's flavour: shadowed keys, `#`/`;` comments, inline comments after a space).
    public static func parse(_ text: String, path: String) -> ValeConfiguration {
        var cfg = ValeConfiguration(path: path)
        let base = (path as NSString).deletingLastPathComponent
        var order: [String] = [""]
        var values: [String: [(String, [String])]] = ["": []]
        var current = ""
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                if values[current] == nil { values[current] = []; order.append(current) }
                continue
            }
            for marker in [" #", " ;", "\t#", "\t;"] {
                if let r = line.range(of: marker) { line = String(line[..<r.lowerBound]) }
            }
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if let i = values[current]!.firstIndex(where: { $0.0 == key }) {
                values[current]![i].1.append(value)
            } else {
                values[current]!.append((key, [value]))
            }
        }
        func list(_ vs: [String]) -> [String] {
            var out: [String] = []
            for v in vs { for p in v.split(separator: ",") {
                let t = p.trimmingCharacters(in: .whitespaces)
                if !t.isEmpty && !out.contains(t) { out.append(t) }
            } }
            return out
        }
        func level(_ key: String, _ v: String) -> Bool {
            let opts = ["YES", "suggestion", "warning", "error"]
            if v == "NO" || !opts.contains(v) { return false }
            if v != "YES" { cfg.ruleLevels[key] = v }
            return true
        }
        for (key, vs) in values[""] ?? [] {
            switch key {
            case "StylesPath":
                if let last = vs.last, !last.isEmpty {
                    let p = last.hasPrefix("/") ? last : (base as NSString).appendingPathComponent(last)
                    cfg.stylesPath = URL(fileURLWithPath: p).standardizedFileURL.path
                    var isDir: ObjCBool = false
                    if !FileManager.default.fileExists(atPath: cfg.stylesPath!, isDirectory: &isDir) || !isDir.boolValue {
                        cfg.problems.append("\(path): StylesPath '\(last)' does not exist; only the built-in Vale style applies")
                    }
                }
            case "MinAlertLevel":
                switch vs.last ?? "" {
                case "suggestion": cfg.minAlertLevel = 0
                case "warning": cfg.minAlertLevel = 1
                case "error": cfg.minAlertLevel = 2
                default: cfg.problems.append("\(path): MinAlertLevel must be 'suggestion', 'warning', or 'error'")
                }
            case "Vocab": cfg.vocab = list(vs)
            case "IgnoredScopes": cfg.ignoredScopes = list(vs)
            case "SkippedScopes": cfg.skippedScopes = list(vs)
            case "IgnoredClasses": cfg.ignoredClasses = list(vs)
            case "WordTemplate": cfg.wordTemplate = vs.last ?? ""
            default: break
            }
        }
        for (k, vs) in values["formats"] ?? [] { cfg.formats[k] = vs.last ?? "" }
        for (key, vs) in values["*"] ?? [] {
            switch key {
            case "BasedOnStyles": cfg.globalBaseStyles = list(vs)
            case "BlockIgnores": cfg.blockIgnores.append(("*", list(vs)))
            case "IgnorePatterns": cfg.blockIgnores.append(("*", list(vs)))
            case "TokenIgnores": cfg.tokenIgnores.append(("*", list(vs)))
            case "Lang", "Transform", "CommentDelimiters": break
            default:
                cfg.globalChecks[key] = level(key, vs.first ?? "")
                cfg.namedRules.append(key)
            }
        }
        for label in order where !["", "*", "DEFAULT", "formats", "asciidoctor"].contains(label) {
            var sec = Section(label: label, glob: ValeGlob(label), baseStyles: nil, checks: [])
            for (key, vs) in values[label] ?? [] {
                switch key {
                case "BasedOnStyles": sec.baseStyles = list(vs)
                case "BlockIgnores", "IgnorePatterns": cfg.blockIgnores.append((label, list(vs)))
                case "TokenIgnores": cfg.tokenIgnores.append((label, list(vs)))
                case "Lang", "Transform", "CommentDelimiters": break
                default:
                    sec.checks.append((key, level(key, vs.first ?? "")))
                    cfg.namedRules.append(key)
                }
            }
            cfg.sections.append(sec)
        }
        return cfg
    }

    /// The base styles and rule switches for the file at `relativePath` (relative to the working folder).
    public func settings(for relativePath: String) -> (baseStyles: [String], checks: [String: Bool]) {
        var styles = globalBaseStyles
        var checks: [String: Bool] = [:]
        for sec in sections where sec.glob.matches(relativePath) {
            if let b = sec.baseStyles { styles = b }
            for (k, v) in sec.checks { checks[k] = v }
        }
        return (styles, checks)
    }
}

/// Vale's section globs (gobwas/glob without separators: `*` also crosses `/`), with `{a,b}`,
/// `[abc]`, `?`, `**` and a leading `!` for negation.
public struct ValeGlob: Sendable {
    public let pattern: String
    let negated: Bool
    let regex: ValeRegex?

    public init(_ pattern: String) {
        var p = pattern
        negated = p.hasPrefix("!")
        while p.hasPrefix("!") { p.removeFirst() }
        self.pattern = p
        var r = "^"
        var inBrace = 0
        var chars = Array(p)[...]
        while let c = chars.popFirst() {
            switch c {
            case "*": r += ".*"; while chars.first == "*" { chars.removeFirst() }
            case "?": r += "."
            case "{": inBrace += 1; r += "(?:"
            case "}" where inBrace > 0: inBrace -= 1; r += ")"
            case "," where inBrace > 0: r += "|"
            case "[":
                var cls = "["
                if chars.first == "!" { chars.removeFirst(); cls += "^" }
                while let d = chars.popFirst(), d != "]" { cls += d == "\\" ? "\\\\" : String(d) }
                r += cls + "]"
            case "\\": if let d = chars.popFirst() { r += NSRegularExpression.escapedPattern(for: String(d)) }
            default: r += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        r += "$"
        regex = try? ValeRegex(r)
    }

    public func matches(_ path: String) -> Bool {
        guard let regex else { return false }
        return regex.isMatch(path) != negated
    }
}
