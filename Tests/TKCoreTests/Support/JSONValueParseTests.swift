import Foundation
import Testing
@testable import TKCore

/// `JSONValue.parse` reads with `JSONSyntax.value` and leaves to Foundation's `JSONDecoder` only what
/// that declines. The two readers must agree wherever the first accepts: compared on generated JSON
/// texts and on mutations of them (bytes changed, dropped and repeated), on numbers at the edges of
/// `Double`, on escapes and surrogates, and on the built-in configuration.
@Suite struct JSONValueParseTests {
    static func decoder(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    static func fast(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONSyntax.value(bytes)
    }

    /// Equal, numbers to the bit (`==` would take -0 for 0).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return Array(x.unicodeScalars) == Array(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { same(v, $0) } ?? false }
        default: return false
        }
    }

    struct Generator {
        var rng: SplitMix
        init(seed: UInt64) { rng = SplitMix(seed: seed) }
        mutating func next() -> UInt64 { rng.next() }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

        static let numbers = ["0", "-0", "1", "-1", "0.5", "1e2", "1E+2", "1e-2", "123456789012345678901234567890",
                              "9007199254740993", "5e-324", "4.9e-324", "2e-324", "1e-400", "0e-400", "0e400", "1e308",
                              "1.7976931348623157e308", "1.7976931348623159e308", "1e400", "-1e400", "2.2250738585072011e-308",
                              "0.1", "3.14159", "-12.5e-3", "0.0000000000000000000000000000001e-300", "01", "1.", ".5", "-",
                              "1e", "1e+", "+1", "0x10", "NaN", "Infinity"]
        static let strings = [#""""#, #""plain""#, #""é ü 中文 😀""#, #""\n\t\r\b\f\/\\\"""#, #""\u00e9\u4e2d""#,
                              #""\ud83d\ude00""#, #""\ud800""#, #""\udc00x""#, #""\ud83dx""#, #""\u12""#, #""\x""#,
                              "\"tab\there\"", "\"line\nbreak\"", #""\u0000""#, "\"\u{7f}\"", "\"a", #""\uDBFF\uDFFF""#]

        mutating func text(depth: Int = 0) -> String {
            let k = depth > 3 ? below(4) : below(7)
            switch k {
            case 0: return Self.numbers[below(Self.numbers.count)]
            case 1: return Self.strings[below(Self.strings.count)]
            case 2: return ["true", "false", "null", "tru", "nul"][below(5)]
            case 3: return ["1", "\"x\"", "[]", "{}"][below(4)]
            case 4, 5:
                var parts: [String] = []
                for _ in 0..<below(4) { parts.append(text(depth: depth + 1)) }
                let space = [" ", "", "\n  ", "\t"][below(4)]
                return "[" + space + parts.joined(separator: "," + space) + (below(5) == 0 ? "," : "") + "]"
            default:
                var parts: [String] = []
                let keys = [#""a""#, #""b""#, #""a""#, #""é""#, #""\u0061""#, #""""#]
                for _ in 0..<below(4) { parts.append(keys[below(keys.count)] + ":" + [" ", ""][below(2)] + text(depth: depth + 1)) }
                return "{" + parts.joined(separator: ", ") + (below(5) == 0 ? "," : "") + "}"
            }
        }

        mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [UInt8(below(256))] }
            var b = bytes
            let at = below(b.count)
            switch below(5) {
            case 0: b[at] = UInt8(below(256))
            case 1: b.remove(at: at)
            case 2: b.insert(b[below(b.count)], at: at)
            case 3: b.insert([0x22, 0x2C, 0x7D, 0x5D, 0x5C, 0xC3, 0xFF, 0x20][below(8)], at: at)
            default: b = Array(b[..<at])
            }
            return b
        }
    }

    /// Where the fast reader accepts a text, the decoder reads the same value. The decoder also
    /// reads a few texts the fast reader declines (they go to the decoder): it does not look inside
    /// the value of a repeated key, which it drops, so a raw tab or an underflowing number there
    /// passes.
    @Test func bothReadersAgreeOnGeneratedTexts() {
        var g = Generator(seed: 20261203)
        var accepted = 0, declinedValid = 0, compared = 0
        for round in 0..<6_000 {
            var bytes = Array(g.text().utf8)
            if round % 2 == 1 { for _ in 0...g.below(3) { bytes = g.mutate(bytes) } }
            if g.below(10) == 0 { bytes = [0xEF, 0xBB, 0xBF] + bytes }
            if g.below(8) == 0 { bytes = Array(" \n".utf8) + bytes + Array("\t ".utf8) }
            let d = Self.decoder(bytes), f = Self.fast(bytes)
            compared += 1
            if let f {
                accepted += 1
                #expect(d != nil && Self.same(f, d!), "fast read \(String(decoding: bytes, as: UTF8.self).debugDescription) as \(f), the decoder as \(String(describing: d))")
            } else if d != nil {
                declinedValid += 1
                #expect((try? JSONValue.parse(bytes)).map { Self.same($0, d!) } == true)
            }
        }
        #expect(accepted > compared / 4)
        #expect(declinedValid < accepted / 20)
    }

    @Test func edgesReadAsTheDecoderReadsThem() throws {
        let cases = [#"{"a":1,"a":2}"#, "1e-400", "2e-324", "5e-324", "1.7976931348623159e308", "0e-400",
                     #""\ud83d\ude00""#, #""\ud800""#, "\u{FEFF}[1]", "[1,]", #"{"a" : 1 , }"#, "01", " 3 ", "",
                     #""\/""#, "-0", "123456789012345678901234567890", #""\u0000""#]
        for c in cases {
            let bytes = Array(c.utf8)
            let d = Self.decoder(bytes), f = Self.fast(bytes)
            #expect((d == nil) == (f == nil), "\(c.debugDescription): decoder \(String(describing: d)), fast \(String(describing: f))")
            if let d, let f { #expect(Self.same(d, f), "\(c.debugDescription)") }
        }
        #expect(try JSONValue.parse(Array(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .number(1)]))
        // Invalid UTF-8 inside a string is an error for both.
        #expect(Self.fast([0x22, 0xC3, 0x22]) == nil && Self.decoder([0x22, 0xC3, 0x22]) == nil)
        #expect(Self.fast([0x22, 0xED, 0xA0, 0x80, 0x22]) == nil)
    }

    /// Every start of the CLI reads the built-in configuration: it takes the fast reader.
    @Test func theBuiltInConfigurationIsReadWithoutTheDecoder() throws {
        let bytes = Array(ConfigurationLoader.defaultJSON.utf8)
        let f = try JSONSyntax.value(bytes)
        let d = try #require(Self.decoder(bytes))
        #expect(Self.same(f, d))
    }
}
