import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export a document as markdown, plain text or HTML.",
            discussion: """
            html is a complete standalone page (GitHub-flavoured markdown: tables, strikethrough, autolinks) \
            with a readable default style; txt is the text without markdown syntax; md is the markdown \
            without its front matter. The title comes from --title, else the front matter, else the first heading.
            """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case md, txt, html
        }

        @Argument(help: "The markdown file (- for standard input).", completion: .file(extensions: ["md", "markdown"]))
        var file: String
        @Option(name: .shortAndLong, help: "md, txt or html.")
        var format: Format = .html
        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.", completion: .file())
        var output: String?
        @Option(name: .long, help: "The document's title.")
        var title: String?

        func run() async throws {
            let doc: InputDocument
            if file == "-" {
                doc = InputDocument(display: "-", path: nil, bytes: Array(FileHandle.standardInput.readDataToEndOfFile()))
            } else {
                doc = try InputOptions.read(file)
            }
            guard let fmt = Exporter.Format(rawValue: format.rawValue) else { throw usageError("unknown format") }
            let bytes = Exporter.export(doc.bytes, fileName: doc.fileName, format: fmt, title: title)
            guard let output, output != "-" else {
                FileHandle.standardOutput.write(Data(bytes))
                return
            }
            let target = FileSystem.absolute(output)
            if let p = doc.path, p == target { throw CLIError("--output is the input file; choose another file") }
            do { try FileSystem.writeAtomically(bytes, to: target, mode: 0o644) } catch {
                throw CLIError("\(output): cannot write (\(String(cString: strerror(error.code))))")
            }
            printError("wrote \(output)")
        }
    }
}
