import Foundation

/// The advisors and story types available: the built-in ones plus the user's custom roles.
///
/// Loading never fails: an unreadable resource or a malformed custom role file becomes a line in
/// `problems` and is skipped.
public struct AdvisorCatalog: Sendable {
    /// Built-in roles in the contract's order, then custom roles sorted by id.
    public var roles: [Role]
    public var storyTypes: [StoryType]
    /// One line per resource or role file that could not be used.
    public var problems: [String]

    /// The built-in role ids of the contract, in its order.
    public static let builtInRoleIDs = [
        "general", "editor", "creative_writer", "technical_writer", "ux_writer", "copywriter",
        "academic_researcher", "data_scientist", "business_analyst", "product_executive", "recent_graduate",
    ]

    /// The story type ids of the contract, in its order.
    public static let storyTypeIDs = [
        "blog_personal", "blog_professional", "brd_prd", "creative_fiction", "biography", "academic_paper",
        "marketing_copy", "technical_docs", "email_memo",
    ]

    public init(roles: [Role] = [], storyTypes: [StoryType] = [], problems: [String] = []) {
        self.roles = roles
        self.storyTypes = storyTypes
        self.problems = problems
    }

    /// The built-in roles and story types only (decoded once per process).
    public static var builtIn: AdvisorCatalog { BuiltInCatalog.shared.catalog }

    /// The built-in catalog plus the custom roles in `paths.rolesDirectory`.
    public static func load(paths: Paths) -> AdvisorCatalog {
        load(rolesDirectory: paths.rolesDirectory)
    }

    /// The built-in catalog plus the custom roles in a folder (`<id>.json` files).
    public static func load(rolesDirectory: PathBytes) -> AdvisorCatalog {
        var catalog = builtIn
        let custom = CustomRoles.loadAll(directory: rolesDirectory, reserved: Set(catalog.roles.map(\.id)))
        catalog.roles += custom.roles
        catalog.problems += custom.problems
        return catalog
    }

    /// The role with this id, or nil.
    public func role(_ id: String) -> Role? { roles.first { $0.id == id } }

    /// The story type with this id, or nil.
    public func storyType(_ id: String) -> StoryType? { storyTypes.first { $0.id == id } }

    public var roleIDs: [String] { roles.map(\.id) }

    /// The roles for a list of ids, in the given order without duplicates.
    ///
    /// Ids are trimmed; an id that matches no role exactly is also tried in lower case.
    /// - Throws: `AdvisorError.unknownRole` naming the first unknown id and listing the valid ones.
    public func resolveAdvisors(_ ids: [String]) throws(AdvisorError) -> [Role] {
        var out: [Role] = []
        for raw in ids {
            let id = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if id.isEmpty { continue }
            guard let r = role(id) ?? role(id.lowercased()) else {
                throw .unknownRole(id: id, valid: roleIDs)
            }
            if !out.contains(where: { $0.id == r.id }) { out.append(r) }
        }
        return out
    }

    /// The story type with this id.
    /// - Throws: `AdvisorError.unknownStoryType` listing the valid ids.
    public func resolveStoryType(_ id: String) throws(AdvisorError) -> StoryType {
        let t = id.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let s = storyType(t) ?? storyType(t.lowercased()) else {
            throw .unknownStoryType(id: t, valid: storyTypes.map(\.id))
        }
        return s
    }

    /// The default advisors of a story type that exist in this catalog.
    public func defaultAdvisors(for storyType: StoryType) -> [Role] {
        storyType.defaultAdvisors.compactMap { role($0) }
    }
}

/// Where the built-in catalog came from.
public enum BuiltInCatalogSource: String, Sendable {
    /// The JSON files of the resource bundle (`Advisors/Resources`).
    case bundle
    /// The copy compiled into the binary, used when the resource bundle is not installed.
    case embedded
    /// Neither could be read: the catalog is empty.
    case none
}

/// Decodes the built-in roles and story types once.
public struct BuiltInCatalog: Sendable {
    public var catalog: AdvisorCatalog
    public var source: BuiltInCatalogSource
    /// A digest of the two files the catalog was decoded from: what it says is a function of them,
    /// so a derivation key can take this instead of encoding the catalog again in every process.
    public var bytesDigest: String

    static let shared = BuiltInCatalog.load()

    static func digest(roles: [UInt8], storyTypes: [UInt8]) -> String {
        String(SHA256Digest.hex(Array("built-in catalog\u{0}".utf8) + roles + [0] + storyTypes).prefix(16))
    }

    /// Reads the resource bundle when it is installed, else the embedded copy.
    static func load() -> BuiltInCatalog {
        var problems: [String] = []
        if let roles = resourceBytes("roles"), let types = resourceBytes("story_types") {
            let decoded = decode(rolesJSON: roles, storyTypesJSON: types)
            if decoded.problems.isEmpty {
                return BuiltInCatalog(catalog: decoded, source: .bundle, bytesDigest: digest(roles: roles, storyTypes: types))
            }
            problems += decoded.problems.map { "built-in advisors resource: \($0); using the embedded copy" }
        }
        let roles = Array(EmbeddedCatalog.roles.utf8), types = Array(EmbeddedCatalog.storyTypes.utf8)
        var decoded = decode(rolesJSON: roles, storyTypesJSON: types)
        decoded.problems = problems + decoded.problems
        let ok = !decoded.roles.isEmpty && !decoded.storyTypes.isEmpty
        return BuiltInCatalog(catalog: decoded, source: ok ? .embedded : .none, bytesDigest: digest(roles: roles, storyTypes: types))
    }

    /// Decodes the two resource files. Anything unreadable gives an empty list and a problem line.
    public static func decode(rolesJSON: [UInt8]?, storyTypesJSON: [UInt8]?) -> AdvisorCatalog {
        struct RolesFile: Decodable { var roles: [Role] }
        struct StoryTypesFile: Decodable {
            var storyTypes: [StoryType]
            enum CodingKeys: String, CodingKey { case storyTypes = "story_types" }
        }
        var problems: [String] = []
        var roles: [Role] = []
        var types: [StoryType] = []
        // Read from the tree when it is as expected (`CatalogTree`); JSONDecoder otherwise, which
        // decides and words the error.
        if let bytes = rolesJSON {
            if let read = CatalogTree.roles(bytes) {
                roles = read
            } else {
                do { roles = try JSON.decode(RolesFile.self, from: bytes).roles } catch {
                    problems.append("roles.json cannot be read (\(describe(error)))")
                }
            }
        } else {
            problems.append("roles.json is missing")
        }
        if let bytes = storyTypesJSON {
            if let read = CatalogTree.storyTypes(bytes) {
                types = read
            } else {
                do { types = try JSON.decode(StoryTypesFile.self, from: bytes).storyTypes } catch {
                    problems.append("story_types.json cannot be read (\(describe(error)))")
                }
            }
        } else {
            problems.append("story_types.json is missing")
        }
        var seen = Set<String>()
        roles = roles.filter { r in
            if seen.insert(r.id).inserted { return true }
            problems.append("roles.json lists \"\(r.id)\" twice")
            return false
        }
        for t in types {
            for a in t.defaultAdvisors where !seen.contains(a) {
                problems.append("story type \"\(t.id)\" names unknown default advisor \"\(a)\"")
            }
        }
        for i in roles.indices { roles[i].custom = false }
        return AdvisorCatalog(roles: roles, storyTypes: types, problems: problems)
    }

    /// The bytes of `Resources/<name>.json` in the resource bundle, or nil when it is not installed.
    ///
    /// `Bundle.module` stops the process when it finds no bundle, so it is only touched when the bundle
    /// sits next to the executable, which is the first place it looks.
    static func resourceBytes(_ name: String) -> [UInt8]? {
        let base = Bundle.main.bundleURL
        let candidates = ["tk-agent_TKCore.resources", "tk-agent_TKCore.bundle"]
        guard candidates.contains(where: { FileManager.default.fileExists(atPath: base.appendingPathComponent($0).path) })
        else { return nil }
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: name, withExtension: "json")
        else { return nil }
        return try? FileSystem.read(PathBytes(url.path), limit: 4 << 20)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let ctx):
            return ctx.debugDescription
        case DecodingError.keyNotFound(let key, let ctx):
            return "missing \"\(key.stringValue)\" at \(path(ctx.codingPath))"
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx):
            return "wrong type at \(path(ctx.codingPath))"
        default:
            return "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        if keys.isEmpty { return "the top level" }
        return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}
