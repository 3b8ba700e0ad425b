import ArgumentParser
import Foundation
import TKCore

/// `--json`, `--ndjson`, `--quiet` for the writing commands.
struct WritingOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document.")
    var json = false
    @Flag(name: .long, help: "Print one JSON object per line, as each is ready.")
    var ndjson = false
    @Flag(name: .long, help: "Print only the essential text (e.g. the suggested text), one per line.")
    var quiet = false

    func validate() throws {
        if [json, ndjson, quiet].filter({ $0 }).count > 1 {
            throw ValidationError("--json, --ndjson and --quiet exclude one another; give one")
        }
    }

    var color: Bool { !json && !ndjson && stdoutIsColorTerminal }
}

/// Writes text to stdout at once (no buffering surprises when mixed with streaming).
func writeOut(_ s: String) {
    FileHandle.standardOutput.write(Data(s.utf8))
}

/// ANSI styles, empty when colour is off.
struct Style {
    var on: Bool
    func wrap(_ s: String, _ code: String) -> String { on ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func bold(_ s: String) -> String { wrap(s, "1") }
    func dim(_ s: String) -> String { wrap(s, "2") }
    func red(_ s: String) -> String { wrap(s, "31") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func cyan(_ s: String) -> String { wrap(s, "36") }
}
