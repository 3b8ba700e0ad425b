import Foundation
import Testing
@testable import TKCore

/// A fresh temporary folder, removed when the test ends.
private struct TempFolder: ~Copyable {
    let path: PathBytes
    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-roles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = PathBytes(url.path)
    }
    deinit { try? FileManager.default.removeItem(atPath: path.display) }
    func write(_ name: String, _ text: String) throws {
        try FileSystem.writeAtomically(Array(text.utf8), to: path.appending(name))
    }
}

private func draft(name: String = "Pirate Captain", focus: [String] = ["nautical terms"],
                   guidelines: [String] = ["Talk like a pirate."],
                   perspective: String = "Reads every page as a ship's log.") -> RoleDraft {
    RoleDraft(name: name, focusAreas: focus, guidelines: guidelines, perspective: perspective)
}

@Suite struct CustomRolesTests {
    @Test("ids from names", arguments: [
        ("Pirate Captain", "custom_pirate_captain"), ("Data-Viz  Nerd", "custom_data_viz_nerd"),
        (" Grumpy ", "custom_grumpy"), ("A-B - C", "custom_a_b_c"), ("R2D2", "custom_r2d2"),
    ])
    func slug(name: String, id: String) {
        #expect(CustomRoles.id(forName: name) == id)
    }

    @Test("invalid drafts are refused with one line", arguments: [
        (draft(name: ""), "a name is required"),
        (draft(name: "Bad_Name"), "may only contain"),
        (draft(name: "Émile"), "may only contain"),
        (draft(name: "semi;colon"), "may only contain"),
        (draft(name: "- -"), "at least one letter"),
        (draft(name: String(repeating: "a", count: 51)), "the limit is 50"),
        (draft(focus: []), "1 to 5 focus areas"),
        (draft(focus: ["a", "b", "c", "d", "e", "f"]), "1 to 5 focus areas"),
        (draft(focus: ["  "]), "1 to 5 focus areas"),
        (draft(guidelines: []), "1 to 5 guidelines"),
        (draft(guidelines: Array(repeating: "g", count: 6)), "1 to 5 guidelines"),
        (draft(perspective: "too short"), "10 to 200 characters"),
        (draft(perspective: String(repeating: "p", count: 201)), "10 to 200 characters"),
    ])
    func invalid(d: RoleDraft, message: String) {
        do {
            _ = try CustomRoles.validate(d)
            Issue.record("expected \(message)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func validDraftBuildsARole() throws {
        var d = draft()
        d.goodExamples = ["Arr, the tide turns."]
        let r = try CustomRoles.validate(d)
        #expect(r.id == "custom_pirate_captain")
        #expect(r.custom)
        #expect(r.description == "Reads every page as a ship's log.")
        #expect(r.effectiveVoice.contains("Pirate Captain"))
        #expect(r.goodExamples == ["Arr, the tide turns."])
        // Boundaries are accepted.
        _ = try CustomRoles.validate(draft(focus: ["a", "b", "c", "d", "e"], perspective: String(repeating: "p", count: 10)))
        _ = try CustomRoles.validate(draft(perspective: String(repeating: "p", count: 200)))
    }

    @Test func createListAndDelete() throws {
        let dir = try TempFolder()
        let roles = dir.path.appending("roles")
        let r = try CustomRoles.create(draft(), directory: roles)
        #expect(FileSystem.lstatIfExists(roles.appending("custom_pirate_captain.json"))?.kind == .regular)
        #expect(throws: AdvisorError.roleExists(id: r.id)) { try CustomRoles.create(draft(), directory: roles) }
        var d2 = draft()
        d2.perspective = "A different perspective altogether."
        #expect(try CustomRoles.create(d2, directory: roles, force: true).perspective == d2.perspective)

        let catalog = AdvisorCatalog.load(rolesDirectory: roles)
        #expect(catalog.problems.isEmpty)
        #expect(catalog.roles.count == AdvisorCatalog.builtInRoleIDs.count + 1)
        let loaded = try #require(catalog.role("custom_pirate_captain"))
        #expect(loaded.custom && loaded.perspective == d2.perspective)
        #expect(try catalog.resolveAdvisors(["editor", "custom_pirate_captain"]).count == 2)

        #expect(throws: AdvisorError.builtInRole(id: "editor")) { try CustomRoles.delete(id: "editor", directory: roles) }
        #expect(throws: AdvisorError.roleNotFound(id: "custom_nope")) { try CustomRoles.delete(id: "custom_nope", directory: roles) }
        #expect(try CustomRoles.delete(id: "Pirate Captain", directory: roles) == "custom_pirate_captain")
        #expect(AdvisorCatalog.load(rolesDirectory: roles).role("custom_pirate_captain") == nil)
    }

    @Test func malformedFilesAreReportedAndSkipped() throws {
        let dir = try TempFolder()
        try CustomRoles.create(draft(), directory: dir.path)
        try dir.write("custom_broken.json", "{not json")
        try dir.write("custom_array.json", "[1, 2]")
        try dir.write("custom_many.json", #"{"name": "Many", "focus_areas": ["a","b","c","d","e","f"], "guidelines": ["g"], "perspective": "A perspective here."}"#)
        try dir.write("custom_mismatch.json", #"{"id": "custom_other", "name": "Mismatch", "focus_areas": ["a"], "guidelines": ["g"], "perspective": "A perspective here."}"#)
        try dir.write("editor.json", #"{"name": "Editor", "focus_areas": ["a"], "guidelines": ["g"], "perspective": "A perspective here."}"#)
        try dir.write("pirate.json", #"{"name": "Pirate", "focus_areas": ["a"], "guidelines": ["g"], "perspective": "A perspective here."}"#)
        try dir.write("custom_tip.json", #"{"name": "Tip", "focus_areas": ["a"], "guidelines": ["g"], "perspective": "A perspective here.", "quick_tips": [{"phrase": "x", "message": "y", "category": "nonsense"}]}"#)
        try dir.write("notes.txt", "ignored")
        try dir.write(".custom_hidden.json", "{")
        let catalog = AdvisorCatalog.load(rolesDirectory: dir.path)
        #expect(catalog.roles.filter(\.custom).map(\.id) == ["custom_pirate_captain"])
        #expect(catalog.problems.count == 7, "\(catalog.problems)")
        #expect(catalog.problems.allSatisfy { $0.hasSuffix("; skipped") && !$0.contains("\n") })
        #expect(catalog.problems.contains { $0.contains("custom_many.json") && $0.contains("1 to 5 focus areas") })
        #expect(catalog.problems.contains { $0.contains("custom_mismatch.json") && $0.contains("does not match") })
        #expect(catalog.problems.contains { $0.contains("editor.json") && $0.contains("built-in") })
        #expect(catalog.problems.contains { $0.contains("pirate.json") && $0.contains("custom_<name>.json") })
        // A broken file can still be deleted.
        #expect(try CustomRoles.delete(id: "custom_broken", directory: dir.path) == "custom_broken")
    }

    @Test func handWrittenFileWithExtras() throws {
        let dir = try TempFolder()
        try dir.write("custom_grumpy.json", """
            {"name": "Grumpy", "focus_areas": ["tone"], "guidelines": ["Complain."], "perspective": "Hates everything, kindly.",
             "good_example": "Fine.", "voice_and_tone": "You are grumpy.",
             "quick_tips": [{"phrase": "awesome", "message": "Nothing is awesome.", "category": "cliche"}]}
            """)
        let catalog = AdvisorCatalog.load(rolesDirectory: dir.path)
        #expect(catalog.problems.isEmpty)
        let r = try #require(catalog.role("custom_grumpy"))
        #expect(r.goodExamples == ["Fine."])
        #expect(r.effectiveVoice == "You are grumpy.")
        #expect(r.quickTips == [QuickTip(phrase: "awesome", message: "Nothing is awesome.", category: .cliche)])
    }

    @Test func missingFolderIsNotAProblem() {
        let catalog = AdvisorCatalog.load(rolesDirectory: PathBytes("/nonexistent/tk-\(UUID().uuidString)/roles"))
        #expect(catalog.problems.isEmpty)
        #expect(catalog.roles.count == AdvisorCatalog.builtInRoleIDs.count)
    }
}
