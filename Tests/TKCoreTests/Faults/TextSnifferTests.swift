import Testing
@testable import TKCore

@Suite struct TextSnifferTests {
    @Test func textIsText() {
        #expect(TextSniffer.problem(Array("# Title\n\nPlain prose, café, 日本語, emoji 🎉.\n".utf8)) == nil)
        #expect(TextSniffer.problem([UInt8]()) == nil)
    }

    @Test func nulBytesAreNotText() {
        #expect(TextSniffer.problem(Array("abc".utf8) + [0] + Array("def".utf8)) == "NUL bytes")
    }

    @Test func aFewInvalidBytesAreTolerated() {
        // One Latin-1 "é" in a long English text.
        var bytes = Array(String(repeating: "The quick brown fox. ", count: 20).utf8)
        bytes.append(0xE9)
        bytes += Array(" more text\n".utf8)
        #expect(TextSniffer.problem(bytes) == nil)
        // A file cut in the middle of a character.
        var cut = Array(String(repeating: "words ", count: 50).utf8)
        cut += Array("é".utf8).prefix(1)
        #expect(TextSniffer.problem(cut) == nil)
    }

    @Test func shortLatin1ProseIsText() {
        // Latin-1 accents in a short file: text (the agent indexes it, decoding them as U+FFFD).
        let latin1: [UInt8] = Array("# Latin\n\nna".utf8) + [0xEF] + Array("ve caf".utf8) + [0xE9] + Array(" latinword\n".utf8)
        #expect(TextSniffer.problem(latin1) == nil)
        #expect(TextSniffer.problem(Array("# Bad bytes ".utf8) + [0xFF, 0xFE] + Array("\n\nbadword here\n".utf8)) == nil)
    }

    @Test func randomBytesAreNotText() {
        var rng = SplitMix(seed: 42)
        let bytes = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next() % 255 + 1) }  // no NUL
        let problem = TextSniffer.problem(bytes)
        #expect(problem?.hasPrefix("not UTF-8 text") == true)
    }

    @Test func overlongAndSurrogatesAreInvalid() {
        // C0 80 (overlong NUL), ED A0 80 (a surrogate), F5 (out of range) — all invalid UTF-8: alone they
        // read as Windows-1252 (never as UTF-8); beside a well-formed UTF-8 sequence the file is not text.
        let bytes: [UInt8] = [0xC0, 0x80, 0xED, 0xA0, 0x80, 0xF5]
        #expect(DocumentText.utf8(bytes).latin1)
        #expect(TextSniffer.problem(bytes + Array("é".utf8)) != nil)
    }

    @Test func agreesWithTheStandardLibraryOnValidity() {
        // Random short sequences biased to high bytes: valid exactly when Swift decodes them without repairs.
        var rng = SplitMix(seed: 7)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 4) + 1
            let bytes = (0..<n).map { _ in
                rng.next() % 3 == 0 ? UInt8(truncatingIfNeeded: rng.next() % 0x7F + 1) : UInt8(truncatingIfNeeded: 0x80 + rng.next() % 0x80)
            }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            // With maxInvalidShare below 1/4, any invalid byte in ≤ 4 bytes is over the share, unless
            // the bytes read as Windows-1252 text (then they are decoded as such).
            let latin1 = DocumentText.latin1(bytes) != nil
            #expect((TextSniffer.problem(bytes) == nil) == (valid || latin1), "\(bytes)")
        }
    }
}

/// A small deterministic generator for tests (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
