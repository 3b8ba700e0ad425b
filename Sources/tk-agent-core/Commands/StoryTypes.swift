import ArgumentParser
import TKCore

extension TKAgent {
    struct StoryTypes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "story-types",
            abstract: "List, show and assemble story types.",
            subcommands: [List.self, Show.self, Assemble.self],
            defaultSubcommand: List.self
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the story types and their default advisors.")
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let catalog = StoryTypes.loadCatalog()
                if output.json {
                    print(JSON.string(catalog.storyTypes))
                    return
                }
                let rows = catalog.storyTypes.map { [$0.id, $0.name, $0.defaultAdvisors.joined(separator: ", ")] }
                print(Roles.table(header: ["ID", "NAME", "DEFAULT ADVISORS"], rows: rows))
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one story type.")
            @Argument(help: "The story type id (see `tk-agent story-types list`).") var id: String
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let catalog = StoryTypes.loadCatalog()
                let type: StoryType
                do { type = try catalog.resolveStoryType(id) } catch {
                    throw CLIError("story-types show: \(error.description)")
                }
                if output.json {
                    print(JSON.string(type))
                    return
                }
                print(StoryTypes.render(type))
            }
        }

        struct Assemble: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "assemble",
                abstract: "Recommend a story type and advisors for a description of your writing.")
            @Argument(help: "What you are writing, in a sentence or two.") var description: String
            @OptionGroup var output: OutputOptions
            @OptionGroup var llm: LLMOptions

            func validate() throws {
                if description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    throw ValidationError("describe your writing, e.g. tk-agent story-types assemble \"a launch post for our API\"")
                }
            }

            func run() async throws {
                let catalog = Writing.catalog()
                let loaded = llm.loadConfiguration(project: nil)
                let result: AssemblyResult
                switch try await llm.providerResult(configuration: loaded.config) {
                case .success(let provider):
                    let (r, usage) = try await Writing.assemble(description: description, catalog: catalog,
                                                                provider: provider, model: llm.model)
                    llm.report(usage, configuration: loaded.config)
                    result = r
                case .failure(.notConfigured(let why)) where llm.provider == nil:
                    // Offline: the built-in keyword matcher still gives a useful team.
                    guard let h = StoryTypeAssembler.heuristicRecommendation(description: description, catalog: catalog)
                    else { throw CLIError(why) }
                    printError("note: \(why); used the built-in keyword matcher instead of a model")
                    result = AssemblyResult(storyType: h.storyType, advisors: h.advisors, genreContext: h.genreContext,
                                            source: "heuristic", problems: [])
                case .failure(let e):
                    throw e.cli
                }
                for p in result.problems { printError("note: \(p)") }
                if output.json {
                    print(JSON.string(result))
                    return
                }
                var out = "Story type: \(result.storyType.name) (\(result.storyType.id))\n\nAdvisors:\n"
                for a in result.advisors {
                    let name = catalog.role(a.roleId)?.name ?? a.roleId
                    out += "  \(name) (\(a.roleId))\n"
                    if !a.reason.isEmpty { out += Roles.wrap(a.reason, indent: "    ") + "\n" }
                }
                out += "\nGenre context:\n" + Roles.wrap(result.genreContext) + "\n"
                out += "\nUse it: tk-agent suggest FILE --story-type \(result.storyType.id) --advisors "
                    + result.advisors.map(\.roleId).joined(separator: ",") + "\n"
                writeOut(out)
            }
        }

        /// The built-in catalog; problems go to stderr as warnings.
        static func loadCatalog() -> AdvisorCatalog {
            let catalog = AdvisorCatalog.builtIn
            for p in catalog.problems { printError("warning: \(p)") }
            return catalog
        }

        static func render(_ t: StoryType) -> String {
            let grade = t.thresholds.maxGrade.map { String(format: "%g", $0) } ?? "none"
            return """
                \(t.name) (\(t.id))
                \(Roles.wrap(t.description, indent: ""))

                Default advisors: \(t.defaultAdvisors.joined(separator: ", "))
                Heuristics: sentences up to \(t.thresholds.maxSentenceWords) words, reading grade up to \(grade)

                Genre context:
                \(Roles.wrap(t.genreContext))

                Review focus:
                  early:
                \(Roles.wrap(t.reviewFocus.early, indent: "    "))
                  middle:
                \(Roles.wrap(t.reviewFocus.middle, indent: "    "))
                  late:
                \(Roles.wrap(t.reviewFocus.late, indent: "    "))
                """
        }
    }
}
