import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    /// A hidden benchmarking command: compares the compiled word table with Hunspell itself on every
    /// distinct word the spelling pass would check in the given documents (`bench/spelling_agreement.py`).
    struct SpellingAgreementCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "spelling-agreement",
            abstract: "Compare the compiled word table's verdicts with Hunspell's on the words of documents.",
            shouldDisplay: false
        )

        @Option(name: .long, help: "The dictionary, e.g. en_US or en_GB.")
        var lang = "en_US"

        @Option(name: .long, help: "Also compare these words (one a line), e.g. a word list.")
        var words: String?

        @Argument(help: "Files or folders (.md, .markdown, .txt).")
        var paths: [String] = []

        func run() async throws {
            let speller: Speller
            switch Speller.named(lang) {
            case .success(let s): speller = s
            case .failure(let p): printError(p.description); throw ExitCode(1)
            }
            var list: [String] = []
            var files = 0
            let engine = HeuristicsEngine()
            for path in paths {
                for file in Self.files(path) {
                    guard let bytes = try? FileSystem.read(PathBytes(file), limit: 64 << 20) else {
                        printError("\(file): cannot be read"); continue
                    }
                    files += 1
                    list += engine.spellingCandidates(in: MarkdownDocument(bytes: bytes, fileName: file))
                }
            }
            if let words {
                guard let b = try? FileSystem.read(PathBytes(words), limit: 64 << 20) else {
                    printError("\(words): cannot be read"); throw ExitCode(1)
                }
                list += String(decoding: b, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            }
            let clock = ContinuousClock()
            let t0 = clock.now
            let result = SpellingAgreement.compare(list, speller: speller)
            let elapsed = clock.now - t0
            var out: [String: Any] = [
                "language": result.language, "files": files, "words": result.words, "agree": result.agree,
                "table_serves": result.tableServes, "table_only": result.tableOnly, "hunspell_only": result.hunspellOnly,
                "seconds": Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            ]
            out["hunspell_loads"] = speller.hunspellLoadCount
            let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }

        /// `path` itself, or the documents under it (sorted).
        static func files(_ path: String) -> [String] {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return [] }
            guard isDir.boolValue else { return [path] }
            var out: [String] = []
            if let e = FileManager.default.enumerator(atPath: path) {
                for case let rel as String in e where rel.hasSuffix(".md") || rel.hasSuffix(".markdown") || rel.hasSuffix(".txt") {
                    out.append(path + "/" + rel)
                }
            }
            return out.sorted()
        }
    }
}
