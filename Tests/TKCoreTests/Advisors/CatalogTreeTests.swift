import Foundation
import Testing
@testable import TKCore

/// The catalog read from its JSON tree is what `JSONDecoder` reads, and anything the tree reader
/// does not expect is left to `JSONDecoder` (nil), never read otherwise.
@Suite struct CatalogTreeTests {
    struct RolesFile: Decodable { var roles: [Role] }
    struct StoryTypesFile: Decodable {
        var storyTypes: [StoryType]
        enum CodingKeys: String, CodingKey { case storyTypes = "story_types" }
    }

    static func decoded<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    @Test func theBuiltInFilesReadAsJSONDecoderReadsThem() throws {
        let roles = try #require(CatalogTree.roles(Array(EmbeddedCatalog.roles.utf8)))
        let types = try #require(CatalogTree.storyTypes(Array(EmbeddedCatalog.storyTypes.utf8)))
        #expect(roles.count > 5 && types.count > 5)
        #expect(roles == Self.decoded(RolesFile.self, EmbeddedCatalog.roles)?.roles)
        #expect(types == Self.decoded(StoryTypesFile.self, EmbeddedCatalog.storyTypes)?.storyTypes)
        #expect(roles.contains { !$0.quickTips.isEmpty } && types.contains { $0.thresholds != .default })
    }

    /// Variants of one role and one story type: where `JSONDecoder` reads them, the tree reader reads
    /// the same or declines; where it refuses them, the tree reader declines.
    @Test func variantsReadTheSameOrAreLeftToJSONDecoder() {
        let tip = #"{"phrase": "click here", "message": "Say where.", "category": "weasel"}"#
        let roles = [
            #"{"id": "a", "name": "A", "focus_areas": ["x"]}"#,
            #"{"id": "a", "name": "A", "focus_areas": [], "perspective": "P", "custom": true}"#,
            #"{"id": "a", "name": "A", "focus_areas": ["x"], "description": null, "expertise": null, "quick_tips": [\#(tip)]}"#,
            #"{"id": "a", "name": "A", "focus_areas": ["x"], "quick_tips": [{"phrase": "p", "message": "m", "category": "weasel", "replacement": "r"}]}"#,
            #"{"id": "a", "name": "A", "focus_areas": ["x"], "unknown": {"deep": [1, 2]}}"#,
            // Refused by JSONDecoder.
            #"{"id": "a", "name": "A"}"#,
            #"{"id": "a", "name": null, "focus_areas": []}"#,
            #"{"id": 1, "name": "A", "focus_areas": []}"#,
            #"{"id": "a", "name": "A", "focus_areas": ["x", 2]}"#,
            #"{"id": "a", "name": "A", "focus_areas": [], "custom": "yes"}"#,
            #"{"id": "a", "name": "A", "focus_areas": [], "quick_tips": [{"phrase": "p", "message": "m", "category": "nonsense"}]}"#,
            #"{"id": "a", "name": "A", "focus_areas": [], "quick_tips": [{"phrase": "p", "category": "weasel"}]}"#,
            #"{"id": "a", "name": "A", "focus_areas": [], "quick_tips": {"phrase": "p"}}"#,
        ]
        Self.compare(roles, wrap: { #"{"roles": [\#($0)]}"# }, mine: CatalogTree.roles, theirs: { Self.decoded(RolesFile.self, $0)?.roles })
        let types = [
            #"{"id": "t", "name": "T", "default_advisors": ["a"]}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_sentence_words": 25}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_sentence_words": 25, "max_grade": 9.5}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_sentence_words": 25.0, "max_grade": null}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "review_focus": {"early": "e", "middle": "m", "late": "l"}, "keywords": ["k"]}"#,
            // Refused by JSONDecoder.
            #"{"id": "t", "name": "T"}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_grade": 9}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_sentence_words": 25.5}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "thresholds": {"max_sentence_words": "25"}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "review_focus": {"early": "e", "late": "l"}}"#,
            #"{"id": "t", "name": "T", "default_advisors": [], "genre_context": 3}"#,
        ]
        Self.compare(types, wrap: { #"{"story_types": [\#($0)]}"# }, mine: CatalogTree.storyTypes,
                     theirs: { Self.decoded(StoryTypesFile.self, $0)?.storyTypes })
        // Not the files' shape at all, and not JSON.
        #expect(CatalogTree.roles(Array(#"{"roles": {}}"#.utf8)) == nil)
        #expect(CatalogTree.storyTypes(Array("[".utf8)) == nil)
    }

    /// Each variant in its file: the tree reader reads what `JSONDecoder` reads or declines, and
    /// declines what it refuses.
    static func compare<T: Equatable>(_ variants: [String], wrap: (String) -> String, mine: ([UInt8]) -> T?,
                                      theirs: (String) -> T?) {
        for v in variants {
            let text = wrap(v)
            let a = mine(Array(text.utf8)), b = theirs(text)
            #expect(a == nil || a == b, "\(v)")
            if b == nil { #expect(a == nil, "\(v)") }
        }
    }

    /// A file the tree reader declines still loads through JSONDecoder, with its error line.
    @Test func aFileTheTreeReaderDeclinesIsReadAsBefore() {
        let catalog = BuiltInCatalog.decode(rolesJSON: Array(#"{"roles": [{"id": "a", "name": "A"}]}"#.utf8),
                                            storyTypesJSON: Array(EmbeddedCatalog.storyTypes.utf8))
        #expect(catalog.roles.isEmpty)
        #expect(catalog.problems.contains { $0.hasPrefix("roles.json cannot be read") })
    }
}
