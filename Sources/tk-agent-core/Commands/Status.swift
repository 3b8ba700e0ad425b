import ArgumentParser
import Foundation
import Logging
import TKCore

extension TKAgent {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show what the agent is doing (index facts when it is not running)."
        )
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let paths = Paths.resolve()
            let snapshot: StatusSnapshot
            if let live = StatusReporter.live(paths: paths) {
                snapshot = live
            } else {
                let loaded = ConfigurationStore(paths: paths).user()
                let db = try? AppDatabase.open(paths: paths)
                var offline = StatusReporter.offline(paths: paths, loaded: loaded, database: db)
                let p = await ProviderFactory.status(configuration: loaded.config, environment: ProcessEnvironment.current,
                                                     paths: paths, logger: Logger(label: "tk-agent"))
                offline.provider = .init(name: p.name, model: p.model, available: p.available, reason: p.reason)
                snapshot = offline
            }
            let written = ProgressStatus.today(paths: paths)
            print(output.json ? ProgressStatus.json(snapshot, written) : snapshot.text(color: stdoutIsColorTerminal) + ProgressStatus.line(written))
        }
    }
}
