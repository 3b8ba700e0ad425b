import Foundation

/// One council member's answer: `{"perspective", "points", "sentiment"}`.
public struct CouncilReply: Codable, Sendable, Equatable {
    public var perspective: String
    public var points: [String]
    /// `positive`, `neutral` or `negative`.
    public var sentiment: String

    public init(perspective: String, points: [String], sentiment: String) {
        self.perspective = perspective; self.points = points; self.sentiment = sentiment
    }
}

/// A model's recommendation for `story-types assemble`, checked against the catalog.
public struct AssemblyReply: Sendable, Equatable {
    /// A known story type id, or nil when the model named none that exists.
    public var storyType: String?
    /// Known advisor ids with the model's reasons, without duplicates.
    public var advisors: [RoleRecommendation]
    public var genreContext: String
    /// Ids the model named that do not exist, and similar notes.
    public var problems: [String]
}

extension ReplyParser {
    /// The first JSON object in a reply (whole, fenced or among prose) for which `accept` holds.
    public static func firstObject(text: String, structured: JSONValue? = nil,
                                   where accept: ([String: JSONValue]) -> Bool) -> [String: JSONValue]? {
        if let structured {
            if let o = structured.objectValue, accept(o) { return o }
            if let s = structured.stringValue, let o = parseLenient(Array(s.utf8))?.objectValue, accept(o) { return o }
            if let o = structured.objectValue {
                for key in ["input", "arguments", "output"] {
                    if let inner = o[key], let found = firstObject(text: "", structured: inner, where: accept) { return found }
                }
            }
        }
        var scan = Scan(stripBOM(Array(text.utf8)))
        let bytes = scan.bytes
        let trimmed = trim(bytes[...])
        if let o = parseLenient(Array(trimmed))?.objectValue, accept(o) { return o }
        for fence in fences(bytes) {
            if let o = parseLenient(Array(trim(bytes[fence])))?.objectValue, accept(o) { return o }
        }
        var i = 0
        var attempts = 0
        while i < bytes.count, attempts < 400 {
            if bytes[i] == UInt8(ascii: "{") {
                attempts += 1
                if let end = scan.matchingEnd(from: i), let o = scan.parse(i..<end)?.objectValue,
                   accept(o) {
                    return o
                }
            }
            i += 1
        }
        return nil
    }

    /// Reads a council member's reply. A reply that is prose instead of JSON becomes the perspective
    /// (neutral, no points); an empty reply gives nil.
    public static func parseCouncil(text: String, structured: JSONValue? = nil) -> CouncilReply? {
        if let o = firstObject(text: text, structured: structured, where: { $0["perspective"] != nil || $0["points"] != nil }) {
            let perspective = o["perspective"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let points = (o["points"]?.arrayValue ?? []).compactMap { $0.stringValue }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            let raw = o["sentiment"]?.stringValue?.lowercased().trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let sentiment = ["positive", "neutral", "negative"].contains(raw) ? raw : "neutral"
            return CouncilReply(perspective: perspective, points: points, sentiment: sentiment)
        }
        let prose = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return prose.isEmpty ? nil : CouncilReply(perspective: prose, points: [], sentiment: "neutral")
    }

    /// Reads an assemble reply and keeps only ids the catalog knows.
    public static func parseAssembly(text: String, structured: JSONValue? = nil, catalog: AdvisorCatalog) -> AssemblyReply? {
        guard let o = firstObject(text: text, structured: structured, where: { $0["story_type"] != nil || $0["advisors"] != nil })
        else { return nil }
        var problems: [String] = []
        var storyType: String?
        if let raw = o["story_type"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty {
            let id = raw.lowercased()
            if catalog.storyType(id) != nil { storyType = id } else {
                problems.append("the model named an unknown story type \"\(raw)\"")
            }
        }
        var advisors: [RoleRecommendation] = []
        for item in o["advisors"]?.arrayValue ?? [] {
            let rawID: String?
            var reason = ""
            if let s = item.stringValue { rawID = s } else {
                rawID = item["id"]?.stringValue ?? item["advisor_id"]?.stringValue ?? item["role"]?.stringValue
                reason = item["reason"]?.stringValue ?? ""
            }
            guard let rawID else { continue }
            let (id, changed) = advisorID(rawID, asked: catalog.roleIDs)
            if changed || catalog.role(id) == nil {
                problems.append("the model named an unknown advisor \"\(rawID)\"")
                continue
            }
            if !advisors.contains(where: { $0.roleId == id }) {
                advisors.append(RoleRecommendation(roleId: id, reason: reason.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        let genre = o["genre_context"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return AssemblyReply(storyType: storyType, advisors: advisors, genreContext: genre, problems: problems)
    }
}
