import Foundation

/// What a writer gives to create a custom role (`roles create` flags or `--from-file`).
public struct RoleDraft: Codable, Sendable, Equatable {
    public var name: String
    public var description: String?
    public var focusAreas: [String]
    public var guidelines: [String]
    public var perspective: String
    public var goodExamples: [String]
    public var badExamples: [String]
    /// Optional extras a role file may carry (kept when a role is re-created from `roles show --json`).
    public var expertise: [String]
    public var voiceAndTone: String?
    public var quickTips: [QuickTip]
    public var keywords: [String]

    enum CodingKeys: String, CodingKey {
        case name, description, guidelines, perspective, expertise, keywords
        case focusAreas = "focus_areas", goodExamples = "good_examples", badExamples = "bad_examples"
        case voiceAndTone = "voice_and_tone", quickTips = "quick_tips"
        case goodExample = "good_example", badExample = "bad_example"
    }

    public init(name: String, description: String? = nil, focusAreas: [String], guidelines: [String],
                perspective: String, goodExamples: [String] = [], badExamples: [String] = [],
                expertise: [String] = [], voiceAndTone: String? = nil, quickTips: [QuickTip] = [],
                keywords: [String] = []) {
        self.name = name; self.description = description; self.focusAreas = focusAreas
        self.guidelines = guidelines; self.perspective = perspective; self.goodExamples = goodExamples
        self.badExamples = badExamples; self.expertise = expertise; self.voiceAndTone = voiceAndTone
        self.quickTips = quickTips; self.keywords = keywords
    }

    /// Decodes a role file leniently: missing lists are empty (validation reports them), and a single
    /// `good_example`/`bad_example` string is accepted beside the lists.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        description = try c.decodeIfPresent(String.self, forKey: .description)
        focusAreas = try c.decodeIfPresent([String].self, forKey: .focusAreas) ?? []
        guidelines = try c.decodeIfPresent([String].self, forKey: .guidelines) ?? []
        perspective = try c.decodeIfPresent(String.self, forKey: .perspective) ?? ""
        goodExamples = try c.decodeIfPresent([String].self, forKey: .goodExamples) ?? []
        badExamples = try c.decodeIfPresent([String].self, forKey: .badExamples) ?? []
        if let one = try c.decodeIfPresent(String.self, forKey: .goodExample) { goodExamples.append(one) }
        if let one = try c.decodeIfPresent(String.self, forKey: .badExample) { badExamples.append(one) }
        expertise = try c.decodeIfPresent([String].self, forKey: .expertise) ?? []
        voiceAndTone = try c.decodeIfPresent(String.self, forKey: .voiceAndTone)
        quickTips = try c.decodeIfPresent([QuickTip].self, forKey: .quickTips) ?? []
        keywords = try c.decodeIfPresent([String].self, forKey: .keywords) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name); try c.encodeIfPresent(description, forKey: .description)
        try c.encode(focusAreas, forKey: .focusAreas); try c.encode(guidelines, forKey: .guidelines)
        try c.encode(perspective, forKey: .perspective); try c.encode(goodExamples, forKey: .goodExamples)
        try c.encode(badExamples, forKey: .badExamples); try c.encode(expertise, forKey: .expertise)
        try c.encodeIfPresent(voiceAndTone, forKey: .voiceAndTone); try c.encode(quickTips, forKey: .quickTips)
        try c.encode(keywords, forKey: .keywords)
    }
}

/// Custom roles: `$XDG_CONFIG_HOME/tk/roles/custom_<slug>.json`.
public enum CustomRoles {
    public static let idPrefix = "custom_"
    public static let maxNameLength = 50
    public static let focusAreaRange = 1...5
    public static let guidelineRange = 1...5
    public static let perspectiveLength = 10...200
    public static let maxExamples = 5

    /// The role id for a name: `custom_` + lower case with runs of spaces and hyphens as one `_`.
    public static func id(forName name: String) -> String {
        var slug = ""
        var pendingSeparator = false
        for ch in name.trimmingCharacters(in: .whitespaces).lowercased() {
            if ch == " " || ch == "-" || ch == "_" {
                pendingSeparator = true
                continue
            }
            if pendingSeparator && !slug.isEmpty { slug.append("_") }
            pendingSeparator = false
            slug.append(ch)
        }
        return idPrefix + slug
    }

    /// Checks a draft against the rules and builds the role.
    /// - Throws: `AdvisorError.invalidRole` with one line naming the rule that failed.
    public static func validate(_ draft: RoleDraft) throws(AdvisorError) -> Role {
        func trimmed(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines) }
        let name = trimmed(draft.name)
        if name.isEmpty { throw .invalidRole("a name is required (--name)") }
        let allowed = name.unicodeScalars.allSatisfy { s in
            (s.isASCII && (CharacterSet.alphanumerics.contains(s))) || s == " " || s == "-"
        }
        if !allowed {
            throw .invalidRole("the name \"\(name)\" may only contain letters a-z, digits, spaces and hyphens")
        }
        if !name.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) {
            throw .invalidRole("the name \"\(name)\" needs at least one letter or digit")
        }
        if name.count > maxNameLength {
            throw .invalidRole("the name is \(name.count) characters long; the limit is \(maxNameLength)")
        }
        let focus = draft.focusAreas.map(trimmed).filter { !$0.isEmpty }
        if !focusAreaRange.contains(focus.count) {
            throw .invalidRole("give 1 to 5 focus areas (--focus), not \(focus.count)")
        }
        if let long = focus.first(where: { $0.count > 100 }) {
            throw .invalidRole("the focus area \"\(long.prefix(30))…\" is longer than 100 characters")
        }
        let guidelines = draft.guidelines.map(trimmed).filter { !$0.isEmpty }
        if !guidelineRange.contains(guidelines.count) {
            throw .invalidRole("give 1 to 5 guidelines (--guideline), not \(guidelines.count)")
        }
        if let long = guidelines.first(where: { $0.count > 300 }) {
            throw .invalidRole("the guideline \"\(long.prefix(30))…\" is longer than 300 characters")
        }
        let perspective = trimmed(draft.perspective)
        if !perspectiveLength.contains(perspective.count) {
            throw .invalidRole("the perspective (--perspective) must be 10 to 200 characters long, not \(perspective.count)")
        }
        let good = draft.goodExamples.map(trimmed).filter { !$0.isEmpty }
        let bad = draft.badExamples.map(trimmed).filter { !$0.isEmpty }
        if good.count > maxExamples || bad.count > maxExamples {
            throw .invalidRole("give at most \(maxExamples) good and \(maxExamples) bad examples")
        }
        if let long = (good + bad).first(where: { $0.count > 500 }) {
            throw .invalidRole("the example \"\(long.prefix(30))…\" is longer than 500 characters")
        }
        let description = draft.description.map(trimmed).flatMap { $0.isEmpty ? nil : $0 } ?? perspective
        if description.count > 300 {
            throw .invalidRole("the description is longer than 300 characters")
        }
        let voice = draft.voiceAndTone.map(trimmed).flatMap { $0.isEmpty ? nil : $0 }
            ?? "You are \(name), a writing advisor. \(perspective)"
        return Role(
            id: id(forName: name), name: name, description: description, expertise: draft.expertise.map(trimmed),
            focusAreas: focus, voiceAndTone: voice, guidelines: guidelines, quickTips: draft.quickTips,
            keywords: draft.keywords, perspective: perspective, goodExamples: good, badExamples: bad, custom: true)
    }

    /// The file of a custom role.
    public static func file(id: String, directory: PathBytes) -> PathBytes {
        directory.appending(id + ".json")
    }

    /// Validates a draft and writes its role file atomically.
    /// - Parameters:
    ///   - force: replace an existing custom role with the same id.
    /// - Throws: `AdvisorError` when the draft is invalid, the role exists or the file cannot be written.
    @discardableResult
    public static func create(_ draft: RoleDraft, directory: PathBytes, force: Bool = false) throws(AdvisorError) -> Role {
        let role = try validate(draft)
        if AdvisorCatalog.builtInRoleIDs.contains(role.id) { throw .builtInRole(id: role.id) }
        let path = file(id: role.id, directory: directory)
        if FileSystem.lstatIfExists(path) != nil && !force { throw .roleExists(id: role.id) }
        do {
            try FileSystem.makeDirectories(directory, mode: 0o755)
            let bytes = try JSON.encode(role)
            try FileSystem.writeAtomically(bytes, to: path, mode: 0o644)
        } catch let e as FileSystemError {
            throw .io("cannot write the role file: \(e.description)")
        } catch {
            throw .io("cannot write the role file: \(error)")
        }
        return role
    }

    /// Removes a custom role's file (even a malformed one).
    ///
    /// `id` may also be given without the `custom_` prefix or as the role's name.
    /// - Returns: the id of the removed role.
    /// - Throws: `AdvisorError.builtInRole` for a built-in id, `.roleNotFound` when there is no such file.
    @discardableResult
    public static func delete(id raw: String, directory: PathBytes) throws(AdvisorError) -> String {
        guard let id = existingID(raw, directory: directory) else {
            if AdvisorCatalog.builtInRoleIDs.contains(raw) { throw .builtInRole(id: raw) }
            throw .roleNotFound(id: raw)
        }
        do { try FileSystem.remove(file(id: id, directory: directory)) } catch {
            throw .io("cannot delete the role file: \(error.description)")
        }
        return id
    }

    /// The id of an existing custom role file matching `raw` (exact id, or via `id(forName:)`).
    public static func existingID(_ raw: String, directory: PathBytes) -> String? {
        let t = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if AdvisorCatalog.builtInRoleIDs.contains(t) { return nil }
        var candidates = [t]
        if !t.hasPrefix(idPrefix) { candidates.append(id(forName: t)) } else { candidates.append(id(forName: String(t.dropFirst(idPrefix.count)))) }
        for c in candidates where !c.isEmpty && !c.contains("/") && c.hasPrefix(idPrefix) {
            if FileSystem.lstatIfExists(file(id: c, directory: directory))?.kind == .regular { return c }
        }
        return nil
    }

    /// Reads every `*.json` file of the folder. Malformed files are reported and skipped.
    /// - Parameters:
    ///   - reserved: ids a custom role may not take (the built-in ones).
    public static func loadAll(directory: PathBytes, reserved: Set<String>) -> (roles: [Role], problems: [String]) {
        let entries: [(name: PathBytes, type: FileStat.Kind?)]
        do { entries = try FileSystem.list(directory) } catch {
            if error.isNotFound { return ([], []) }
            return ([], ["custom roles: \(error.description)"])
        }
        var roles: [Role] = []
        var problems: [String] = []
        for entry in entries.sorted(by: { $0.name < $1.name }) {
            guard let name = entry.name.validUTF8, name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            let path = directory.appending(entry.name)
            switch loadOne(path: path, stem: String(name.dropLast(5)), reserved: reserved) {
            case .success(let r):
                if roles.contains(where: { $0.id == r.id }) {
                    problems.append("\(path.display): duplicate role id \"\(r.id)\"; skipped")
                } else {
                    roles.append(r)
                }
            case .failure(let why):
                problems.append("\(path.display): \(why.message); skipped")
            }
        }
        return (roles, problems)
    }

    struct LoadFailure: Error { var message: String }

    static func loadOne(path: PathBytes, stem: String, reserved: Set<String>) -> Result<Role, LoadFailure> {
        guard let st = FileSystem.lstatIfExists(path), st.kind == .regular else {
            return .failure(LoadFailure(message: "not a regular file"))
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: 1 << 20) } catch {
            return .failure(LoadFailure(message: error.description))
        }
        let draft: RoleDraft
        let fileID: String?
        do {
            let value = try JSONValue.parse(bytes)
            guard case .object(let obj) = value else {
                return .failure(LoadFailure(message: "not a JSON object"))
            }
            fileID = obj["id"]?.stringValue
            draft = try JSON.decode(RoleDraft.self, from: bytes)
        } catch let e as DecodingError {
            return .failure(LoadFailure(message: "not valid role JSON (\(BuiltInCatalog.describe(e)))"))
        } catch {
            return .failure(LoadFailure(message: "not valid JSON"))
        }
        if reserved.contains(stem) {
            return .failure(LoadFailure(message: "\"\(stem)\" is a built-in role id"))
        }
        if !stem.hasPrefix(idPrefix) {
            return .failure(LoadFailure(message: "custom role files are named custom_<name>.json"))
        }
        if let fileID, fileID != stem {
            return .failure(LoadFailure(message: "its id \"\(fileID)\" does not match the file name"))
        }
        do {
            var role = try validate(draft)
            role.id = stem
            return .success(role)
        } catch {
            return .failure(LoadFailure(message: error.description))
        }
    }
}
