import ArgumentParser
import Foundation
import TKCore

/// One text a writing command works on.
struct InputDocument {
    /// What to call it in messages (`-` for standard input, `--text` for given text).
    var display: String
    /// The file, when the text came from one.
    var path: PathBytes?
    var bytes: [UInt8]

    var text: String { String(decoding: bytes, as: UTF8.self) }
    var fileName: String { path?.lastComponent.display ?? "stdin.md" }
    /// The project whose `.tk/config.json` applies: the file's, else the working folder's.
    var project: PathBytes {
        if let path { return DocumentResolver.projectRoot(forFile: path) }
        return DocumentResolver.projectRoot(forFile: FileSystem.absolute(FileManager.default.currentDirectoryPath).appending("-"))
    }
    /// What `journey set` recorded for the file (its sidecar's choices), nil for other text.
    var overrides: JourneyOverrides? {
        guard let path, let rel = path.relative(to: project) else { return nil }
        return DocumentResolver.recordedOverrides(project: project, relative: rel)
    }
}

/// Exit status 64 with one line on stderr: the command was used wrongly.
func usageError(_ message: String) -> ExitCode {
    printError("Error: \(message)")
    return ExitCode(64)
}

/// `--text` or standard input, for commands whose files are given separately.
struct InputOptions: ParsableArguments {
    @Option(name: .long, help: "Work on this text instead of a file.")
    var text: String?

    /// The documents: the files, else `--text`, else standard input when it is not a terminal.
    func documents(files: [String], command: String) throws -> [InputDocument] {
        if text != nil, !files.isEmpty { throw usageError("give FILE arguments or --text, not both") }
        if let text { return [InputDocument(display: "--text", path: nil, bytes: Array(text.utf8))] }
        if files.isEmpty || files == ["-"] {
            if files.isEmpty, isatty(STDIN_FILENO) != 0 {
                throw usageError("give a FILE, --text TEXT, or pipe text on standard input (e.g. tk-agent \(command) draft.md)")
            }
            return [InputDocument(display: "-", path: nil, bytes: Array(FileHandle.standardInput.readDataToEndOfFile()))]
        }
        var out: [InputDocument] = []
        for f in files {
            if f == "-" {
                out.append(InputDocument(display: "-", path: nil, bytes: Array(FileHandle.standardInput.readDataToEndOfFile())))
                continue
            }
            out.append(try Self.read(f))
        }
        return out
    }

    static func read(_ f: String) throws -> InputDocument {
        let abs = FileSystem.absolute(f)
        if let st = FileSystem.lstatIfExists(abs), st.kind == .directory {
            throw CLIError("\(f): is a folder; give a file")
        }
        do {
            return InputDocument(display: f, path: abs, bytes: try FileSystem.read(abs, limit: 64 << 20))
        } catch {
            throw CLIError("\(f): \(error.isNotFound ? "no such file" : "cannot read (\(String(cString: strerror(error.code))))")")
        }
    }
}
