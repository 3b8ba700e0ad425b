import Foundation
import Testing
@testable import TKCore

/// The Tengo subset Vale's `script` rules are written in, and the rule type itself.
@Suite struct TengoTests {
    /// Runs `source` and returns the value it leaves in `out`.
    private func run(_ source: String, scope: String = "") throws -> Tengo.Value {
        let top = try Tengo.run(try Tengo.Program(source), globals: ["scope": .string(scope)])
        return top.lookup("out") ?? .undefined
    }

    @Test func theLanguage() throws {
        #expect(try run("out := 1 + 2 * 3 - 4 / 2").text == "5")
        #expect(try run("x := 10\nx += 5\nx++\nout := x % 7").text == "2")
        #expect(try run("out := \"a\" + 1 + true").text == "a1true")
        #expect(try run("out := 7 > 3 && !(2 == 3) ? \"yes\" : \"no\"").text == "yes")
        #expect(try run("""
            out := []
            for i := 0; i < 5; i++ {
              if i == 1 { continue } else if i == 4 { break }
              out = append(out, i)
            }
            """).text == "[0, 2, 3]")
        #expect(try run("""
            m := {b: 2, "a": 1}
            m.c = 3
            m["d"] = 4
            keys := ""
            total := 0
            for k, v in m { keys += k; total += v }
            out := [keys, total, len(m), m.zz]
            """).text == "[\"abcd\", 10, 4, <undefined>]")
        #expect(try run("""
            add := func(a, b) { return a + b }
            twice := func(f, x) { return f(f(x, x), x) }
            n := 0
            count := func() { n += 1; return n }
            count(); count()
            out := [twice(add, 3), n]
            """).text == "[9, 2]")
        #expect(try run("s := \"héllo\"\nout := [len(s), s[1], s[0:3], is_string(s), type_name(s)]").text
                == "[6, é, \"hé\", true, \"string\"]")
        #expect(try run("e := error(\"bad\")\nout := [is_error(e), is_error(immutable(1)), string(e)]").text
                == "[true, false, \"error: \\\"bad\\\"\"]")
        // A comment, a raw string, a block comment across lines.
        #expect(try run("// note\nout := `a\\nb` /* x\ny */\n").text == "a\\nb")
    }

    @Test func theTextModuleCountsBytesAsGoDoes() throws {
        let out = try run("""
            text := import("text")
            found := text.re_find(`(\\w+)@(\\w+)`, scope, -1)
            first := found[0]
            out := [len(found), first[0].text, first[1].begin, first[2].end,
                    text.index(scope, "ü"), text.split("a,b,,c", ","), text.has_prefix(scope, "mail"),
                    text.re_replace(`\\d+`, "a1b22", "#"), text.trim_space("  x \\n"), text.replace("aaa", "a", "b", 2),
                    text.re_match(`^mail`, scope), text.join(["x", "y"], "-"), text.to_upper("ab")]
            """, scope: "mail ü ann@home and bob@work")
        #expect(out.text == "[2, \"ann@home\", 8, 16, 5, [\"a\", \"b\", \"\", \"c\"], true, \"a#b#\", \"x\", \"bba\", true, \"x-y\", \"AB\"]")
    }

    @Test func aScriptThatNeverEndsOrBreaksFailsInsteadOfHanging() {
        #expect(throws: Tengo.Failure.self) { _ = try run("for { }") }
        #expect(throws: Tengo.Failure.self) { _ = try run("out := undefined_name + 1") }
        #expect(throws: Tengo.Failure.self) { _ = try run("out := [1][5]") }
        #expect(throws: Tengo.Failure.self) { _ = try Tengo.Program("out := (1 + ") }
    }

    /// A rule file is input: values that would trap Swift's arithmetic are errors or Go's results.
    @Test func hostileValuesAreErrorsNotCrashes() throws {
        #expect(try run("out := int(1e300, -1)").text == "-1")
        #expect(try run("x := -9223372036854775807 - 1\nout := [x / -1, x % -1]").text == "[-9223372036854775808, 0]")
        #expect(try run("out := type_name('a' + 9223372036854775807)").text == "char")
        #expect(throws: Tengo.Failure.self) { _ = try run("text := import(\"text\")\nout := text.format_int(5, 99)") }
        #expect(throws: Tengo.Failure.self) { _ = try run("text := import(\"text\")\nout := text.repeat(\"ab\", 9223372036854775807)") }
        #expect(throws: Tengo.Failure.self) { _ = try Tengo.Program("out := " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000)) }
        #expect(throws: Tengo.Failure.self) { _ = try Tengo.Program(String(repeating: "{ ", count: 20_000) + String(repeating: "} ", count: 20_000)) }
        #expect(throws: Tengo.Failure.self) { _ = try Tengo.Program(String(repeating: "if true { ", count: 20_000) + String(repeating: "} ", count: 20_000)) }
        // Nesting a script really uses still runs.
        _ = try Tengo.Program(String(repeating: "if true { ", count: 50) + "x := 1" + String(repeating: " }", count: 50))
    }

    private func lint(_ rules: [String: String], scripts: [String: String] = [:], _ text: String) throws -> (lines: [String], engine: ValeEngine) {
        let root = TestScratch.path("vale-script")
        try FileManager.default.createDirectory(atPath: root + "/styles/House", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/styles/config/scripts", withIntermediateDirectories: true)
        try "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = House\n"
            .write(toFile: root + "/.vale.ini", atomically: true, encoding: .utf8)
        for (name, body) in rules { try body.write(toFile: root + "/styles/House/\(name).yml", atomically: true, encoding: .utf8) }
        for (name, body) in scripts { try body.write(toFile: root + "/styles/config/scripts/\(name)", atomically: true, encoding: .utf8) }
        let engine = ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
        let lines = engine.findings(bytes: Array(text.utf8), relativePath: "test.md").map { "\($0.line):\($0.column):\($0.rule):\($0.message)" }
        return (lines, engine)
    }

    @Test func scriptRulesReportTheirMatchesWhereValeDoes() throws {
        let inline = """
            extends: script
            message: "Long paragraph: %s"
            level: warning
            scope: raw
            script: |
              text := import("text")
              matches := []
              for p in text.re_find(`(?m)^TODO.*$`, scope, -1) {
                matches = append(matches, {begin: p[0].begin, end: p[0].end})
              }
            """
        let fromFile = "extends: script\nmessage: x\nscope: raw\nscript: Own.tengo\n"
        let own = """
            text := import("text")
            matches := []
            i := text.index(scope, "naïve")
            if i >= 0 { matches = append(matches, {begin: i, end: i + len("naïve"), message: "Spell it 'naive'."}) }
            """
        let (lines, engine) = try lint(["Todo": inline, "Own": fromFile], scripts: ["Own.tengo": own],
                                       "# Notes\n\nTODO write this\n\nA naïve plan.\n")
        #expect(engine.styles.skipped.isEmpty && engine.problems.isEmpty)
        #expect(lines == ["3:1:House.Todo:Long paragraph: TODO write this", "5:3:House.Own:Spell it 'naive'."])
    }

    @Test func aBrokenScriptIsOneLineAndTheOtherRulesRun() throws {
        let (lines, engine) = try lint([
            "Broken": "extends: script\nmessage: x\nscript: |\n  matches := [\n",
            "Missing": "extends: script\nmessage: x\nscript: Nowhere.tengo\n",
            "Fails": "extends: script\nmessage: x\nscript: |\n  matches := [1][3]\n",
            "Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n",
        ], "very\n")
        #expect(lines == ["1:1:House.Weasel:'very'"])
        #expect(engine.problems.contains { $0.contains("Broken") && $0.contains("script does not parse") })
        #expect(engine.problems.contains { $0.contains("Nowhere.tengo") })
        #expect(engine.runtimeProblems.contains { $0.contains("House.Fails") && $0.contains("index out of bounds") })
    }

    @Test func aScriptThatRunsOutOfStepsIsStoppedNotRunOnEveryBlock() throws {
        let (lines, engine) = try lint([
            "Loop": "extends: script\nmessage: x\nscript: |\n  for { }\n",
            "Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n",
        ], "One.\n\nTwo.\n\nvery three.\n")
        #expect(lines == ["5:1:House.Weasel:'very'"])
        #expect(engine.styles.scriptFailures.isStopped("House.Loop"))
        #expect(engine.runtimeProblems.filter { $0.contains("House.Loop") }.count == 1)
    }
}
