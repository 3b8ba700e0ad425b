import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Roles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "roles",
            abstract: "List, show, create and delete advisor roles.",
            subcommands: [List.self, Show.self, Create.self, Delete.self],
            defaultSubcommand: List.self
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the built-in and custom roles.")
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let catalog = Roles.loadCatalog()
                if output.json {
                    print(JSON.string(catalog.roles))
                    return
                }
                let rows = catalog.roles.map { [$0.id, $0.name, $0.custom ? "custom" : "built-in", $0.description] }
                print(Roles.table(header: ["ID", "NAME", "KIND", "DESCRIPTION"], rows: rows))
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one role.")
            @Argument(help: "The role id (see `tk-agent roles list`).") var id: String
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let catalog = Roles.loadCatalog()
                guard let role = catalog.role(id) ?? catalog.role(id.lowercased()) else {
                    throw CLIError("roles show: \(AdvisorError.unknownRole(id: id, valid: catalog.roleIDs).description)")
                }
                if output.json {
                    print(JSON.string(role))
                    return
                }
                print(Roles.render(role))
            }
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "create",
                abstract: "Create a custom role (custom_<name>).",
                discussion: """
                    Give the role on the command line or in a JSON file (--from-file) with the keys name, \
                    focus_areas, guidelines, perspective and optionally description, good_examples, bad_examples. \
                    Flags override the file's values.
                    """)
            @Option(help: "The role's name: letters, digits, spaces and hyphens.") var name: String?
            @Option(name: .customLong("focus"), help: "A focus area (1 to 5; repeat the flag).") var focus: [String] = []
            @Option(name: .customLong("guideline"), help: "A guideline (1 to 5; repeat the flag).") var guidelines: [String] = []
            @Option(help: "The role's perspective, 10 to 200 characters.") var perspective: String?
            @Option(name: .customLong("good-example"), help: "Writing this role likes (repeatable).") var goodExamples: [String] = []
            @Option(name: .customLong("bad-example"), help: "Writing this role pushes back on (repeatable).") var badExamples: [String] = []
            @Option(help: "A one-line description (defaults to the perspective).") var description: String?
            @Option(name: .customLong("from-file"), help: "Read the role from a JSON file.", completion: .file(extensions: ["json"]))
            var fromFile: String?
            @Flag(help: "Replace an existing custom role with the same id.") var force = false
            @OptionGroup var output: OutputOptions

            func run() async throws {
                var draft = RoleDraft(name: "", focusAreas: [], guidelines: [], perspective: "")
                if let fromFile {
                    let path = FileSystem.absolute(fromFile)
                    let bytes: [UInt8]
                    do { bytes = try FileSystem.read(path, limit: 1 << 20) } catch {
                        throw CLIError("roles create: cannot read \(fromFile): \(error.description)")
                    }
                    do { draft = try JSON.decode(RoleDraft.self, from: bytes) } catch {
                        throw CLIError("roles create: \(fromFile) is not a valid role JSON object")
                    }
                }
                if let name { draft.name = name }
                if !focus.isEmpty { draft.focusAreas = focus }
                if !guidelines.isEmpty { draft.guidelines = guidelines }
                if let perspective { draft.perspective = perspective }
                if !goodExamples.isEmpty { draft.goodExamples = goodExamples }
                if !badExamples.isEmpty { draft.badExamples = badExamples }
                if let description { draft.description = description }
                let directory = Paths.resolve().rolesDirectory
                let role: Role
                do { role = try CustomRoles.create(draft, directory: directory, force: force) } catch {
                    throw CLIError("roles create: \(error.description)")
                }
                if output.json {
                    print(JSON.string(role))
                } else {
                    print("created \(role.id) (\(CustomRoles.file(id: role.id, directory: directory).display))")
                }
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a custom role.")
            @Argument(help: "The custom role id.") var id: String
            @Flag(help: "Delete without asking.") var force = false

            func run() async throws {
                let directory = Paths.resolve().rolesDirectory
                if AdvisorCatalog.builtInRoleIDs.contains(id) {
                    throw CLIError("roles delete: \(AdvisorError.builtInRole(id: id).description)")
                }
                guard let existing = CustomRoles.existingID(id, directory: directory) else {
                    throw CLIError("roles delete: \(AdvisorError.roleNotFound(id: id).description)")
                }
                if !force {
                    guard isatty(STDIN_FILENO) != 0 else {
                        throw CLIError("roles delete: standard input is not a terminal; add --force to delete \(existing)")
                    }
                    FileHandle.standardError.write(Data("Delete custom role \(existing)? [y/N] ".utf8))
                    let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                    guard answer == "y" || answer == "yes" else {
                        throw CLIError("roles delete: cancelled; \(existing) was not deleted")
                    }
                }
                do { try CustomRoles.delete(id: existing, directory: directory) } catch {
                    throw CLIError("roles delete: \(error.description)")
                }
                print("deleted \(existing)")
            }
        }

        // MARK: - Shared output helpers

        /// The catalog with the user's custom roles; problems go to stderr as warnings.
        static func loadCatalog() -> AdvisorCatalog {
            let catalog = AdvisorCatalog.load(paths: Paths.resolve())
            for p in catalog.problems { printError("warning: \(p)") }
            return catalog
        }

        /// Left-aligned columns separated by two spaces; the last column is not padded.
        static func table(header: [String], rows: [[String]]) -> String {
            let all = [header] + rows
            let widths = header.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
            return all.map { row in
                row.enumerated().map { c, cell in
                    c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n")
        }

        /// Wraps a paragraph at `width` columns, each line starting with `indent`.
        static func wrap(_ text: String, indent: String = "  ", width: Int = 100) -> String {
            var lines: [String] = []
            var line = indent
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                if line.count > indent.count, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = indent
                }
                line += (line.count > indent.count ? " " : "") + word
            }
            if line.count > indent.count { lines.append(line) }
            return lines.joined(separator: "\n")
        }

        static func render(_ role: Role) -> String {
            var out = "\(role.name) (\(role.id))\(role.custom ? ", custom role" : "")\n"
            out += wrap(role.description, indent: "") + "\n"
            if !role.expertise.isEmpty { out += "\nExpertise: \(role.expertise.joined(separator: ", "))\n" }
            out += "\nFocus areas:\n" + role.focusAreas.map { "  - \($0)" }.joined(separator: "\n") + "\n"
            if !role.guidelines.isEmpty {
                out += "\nGuidelines:\n" + role.guidelines.map { "  - \($0)" }.joined(separator: "\n") + "\n"
            }
            if let p = role.perspective { out += "\nPerspective:\n" + wrap(p) + "\n" }
            out += "\nVoice and tone:\n" + wrap(role.effectiveVoice) + "\n"
            if !role.goodExamples.isEmpty {
                out += "\nGood examples:\n" + role.goodExamples.map { "  - \($0)" }.joined(separator: "\n") + "\n"
            }
            if !role.badExamples.isEmpty {
                out += "\nBad examples:\n" + role.badExamples.map { "  - \($0)" }.joined(separator: "\n") + "\n"
            }
            if !role.quickTips.isEmpty {
                out += "\nQuick tips:\n"
                out += role.quickTips.map { t in
                    let fix = t.replacement.map { " → \"\($0)\"" } ?? ""
                    return "  \"\(t.phrase)\"\(fix) [\(t.category.rawValue)]: \(t.message)"
                }.joined(separator: "\n") + "\n"
            }
            if out.hasSuffix("\n") { out.removeLast() }
            return out
        }
    }
}
