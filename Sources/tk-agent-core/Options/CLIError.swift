import ArgumentParser
import Foundation
import TKCore

/// A failure the user can act on: printed as one line on stderr, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Whether standard output is a terminal and colour is allowed (`NO_COLOR` unset).
var stdoutIsColorTerminal: Bool {
    isatty(STDOUT_FILENO) != 0 && (ProcessEnvironment.current["NO_COLOR"] ?? "").isEmpty
}
