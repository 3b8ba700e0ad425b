import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Lsp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lsp",
            abstract: "Language server (LSP 3.17 over standard input and output) for editors.",
            discussion: """
                Start it from your editor, not by hand: quick findings on the unsaved buffer and the pending \
                suggestions of the document's sidecar become diagnostics, with code actions to replace, accept, \
                skip or ignore, hovers, and the commands tk.review, tk.accept, tk.skip, tk.journeySet and \
                tk.addToDictionary. Settings come in a "tk-agent" section of initializationOptions or \
                workspace/didChangeConfiguration. See the README for Neovim, Helix, VS Code, Emacs and Zed.
                """
        )

        @Flag(name: .long, help: "Accepted for editors that pass it; standard input and output are always used.")
        var stdio = false

        func run() async throws {
            signal(SIGPIPE, SIG_IGN)
            let status = await LSPStdio.run(actions: LSPDocumentActions(paths: Paths.resolve()))
            if status != 0 { throw ExitCode(status) }
        }
    }
}
