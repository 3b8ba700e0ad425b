import Foundation
import Testing
@testable import TKCore

/// A rule file read from libyaml's events gives what Yams' composed nodes give, and anything else is
/// left to Yams.
@Suite struct ValeYAMLTests {
    /// A value as text, keys sorted and types named (dictionaries print in no fixed order).
    static func canonical(_ v: Any?) -> String {
        switch v {
        case nil: return "nil"
        case let s as String: return "s:" + s.debugDescription
        case let b as Bool: return "b:\(b)"
        case let i as Int: return "i:\(i)"
        case let d as Double: return "d:\(d)"
        case is NSNull: return "null"
        case let a as [Any]: return "[" + a.map { canonical($0) }.joined(separator: ", ") + "]"
        case let m as [AnyHashable: Any]:
            return "{" + m.map { (k, v) in "\(k.base) -> \(canonical(v))" }.sorted().joined(separator: ", ") + "}"
        case let m as [String: Any]:
            return "{" + m.map { (k, v) in "\(k) -> \(canonical(v))" }.sorted().joined(separator: ", ") + "}"
        default: return "?\(type(of: v!)):\(v!)"
        }
    }

    static let plainCases = [
        "extends: existence\nmessage: \"Use '%s' instead.\"\nlevel: warning\nignorecase: true\ntokens:\n  - a\n  - 'b c'\n  - \"d\\te\"\n",
        "extends: substitution\nswap:\n  are not: aren't\n  'it is(?!\\.)': it's\n  cannot: can't\nmax: 30\nratio: 1.5\nnothing: ~\nempty:\nyes_word: yes\noff: off\n",
        "message: |\n  Two lines\n  of text.\nfolded: >\n  one\n  two\nflow: {a: 1, b: [x, y, 'z']}\nlist: [1, -2, +3, .5, 0x1F, 1e3, true, False, NULL]\n",
        "# a comment\nextends: occurrence   # trailing\nscope: [sentence, ~heading]\ntoken: \\b(\\w+)\\b\nlink: https://example.com/a:b\n",
        "action:\n  name: edit\n  params:\n    - truncate\n    - ' '\nnested:\n  - {k: v}\n  - - deep\n    - 2\n",
        "unicode: \"caf\\u00e9 — ‘quoted’\"\nplain: naïve\n\"quoted key\": 1\n'single key': two\n",
        "just a scalar\n",
        "- a\n- b\n",
        "",
    ]

    @Test func theEventsGiveWhatYamsGives() throws {
        for text in Self.plainCases {
            let fast = ValeYAML.fromEvents(text)
            let slow = try ValeYAML.composed(text)
            if text.isEmpty { #expect(fast == nil); continue }   // no document: left to Yams (nil there too)
            #expect(fast != nil, "\(text)")
            #expect(Self.canonical(fast) == Self.canonical(slow), "\(text)")
            #expect(Self.canonical(try ValeYAML.parse(text)) == Self.canonical(slow))
        }
    }

    @Test func whatTheEventsDoNotCoverIsLeftToYams() throws {
        let declined = [
            "a: 1\na: 2\n",                                  // a repeated key: Yams' error, then the last value wins
            "base: &b {x: 1}\nother: *b\n",                  // anchors and aliases
            "<<: {x: 1}\ny: 2\n",                            // a merge key
            "tagged: !!str 12\n",                            // an explicit tag
            "seq: !!seq [a]\n",
            "--- a: 1\n--- b: 2\n",                          // two documents
            "a: [unclosed\n",                                // a parse error
            "? [complex, key]\n: value\n",                   // a key that is not a scalar
        ]
        for text in declined {
            #expect(ValeYAML.fromEvents(text) == nil, "\(text)")
        }
        // Yams' reading of them is unchanged: the repeated key keeps the last value, the rest as Yams reads them.
        #expect(Self.canonical(try ValeYAML.load("a: 1\na: 2\n")) == "{a -> i:2}")
        #expect(Self.canonical(try ValeYAML.load("base: &b {x: 1}\nother: *b\n")) == Self.canonical(try ValeYAML.composed("base: &b {x: 1}\nother: *b\n")))
        #expect(throws: (any Error).self) { try ValeYAML.load("a: [unclosed\n") }
    }
}
