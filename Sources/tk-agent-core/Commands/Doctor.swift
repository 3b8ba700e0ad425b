import ArgumentParser
import Foundation
import Logging
import TKCore

extension TKAgent {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the machine, the data folder, the projects and the provider; one line each, with the fix.",
            discussion: "Exits 1 when a check fails (FAIL); warnings (warn) do not change the exit code."
        )
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let env = ProcessEnvironment.current
            var logger = Logger(label: "tk-agent")
            logger.logLevel = .critical
            let report = await TKCore.Doctor.run(paths: Paths.resolve(environment: env), environment: env, logger: logger)
            print(output.json ? JSON.string(report) : report.text())
            if !report.ok { throw ExitCode(1) }
        }
    }
}
