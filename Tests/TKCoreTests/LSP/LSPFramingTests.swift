import Foundation
import Testing
@testable import TKCore

private func framed(_ json: String) -> [UInt8] { LSPFramer.frame(Array(json.utf8)) }

private func drain(_ f: inout LSPFramer) -> [LSPFramer.Item] {
    var out: [LSPFramer.Item] = []
    while let i = f.next() { out.append(i) }
    return out
}

@Suite struct LSPFramingTests {
    @Test func oneMessageFedByteByByte() {
        var f = LSPFramer()
        let body = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"é😀"}}"#
        var got: [LSPFramer.Item] = []
        for b in framed(body) {
            f.append([b])
            got += drain(&f)
        }
        #expect(got == [.message(Array(body.utf8))])
        #expect(f.bufferedCount == 0)
    }

    @Test func severalMessagesInOneRead() {
        var f = LSPFramer()
        f.append(framed(#"{"a":1}"#) + framed(#"{"b":2}"#) + Array("Content-Length: 7\r\n\r\n{\"c\"".utf8))
        #expect(drain(&f) == [.message(Array(#"{"a":1}"#.utf8)), .message(Array(#"{"b":2}"#.utf8))])
        f.append(Array(":3}".utf8))
        #expect(drain(&f) == [.message(Array(#"{"c":3}"#.utf8))])
    }

    @Test func extraHeadersAndCaseAreAccepted() {
        var f = LSPFramer()
        f.append(Array("content-length:  2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}".utf8))
        #expect(drain(&f) == [.message(Array("{}".utf8))])
    }

    @Test func badHeadersAreReportedAndTheStreamRecovers() {
        var f = LSPFramer()
        f.append(Array("Content-Type: x\r\n\r\n".utf8) + Array("Content-Length: abc\r\n\r\n".utf8)
                 + Array("garbage line\r\n\r\n".utf8) + framed(#"{"ok":true}"#))
        let items = drain(&f)
        #expect(items.count == 4)
        if case .error(let why) = items[0] { #expect(why.contains("without Content-Length")) } else { Issue.record("expected an error") }
        if case .error(let why) = items[1] { #expect(why.contains("not a number")) } else { Issue.record("expected an error") }
        if case .error(let why) = items[2] { #expect(why.contains("malformed header")) } else { Issue.record("expected an error") }
        #expect(items[3] == .message(Array(#"{"ok":true}"#.utf8)))
    }

    @Test func endlessHeaderIsDiscarded() {
        var f = LSPFramer()
        f.append([UInt8](repeating: 65, count: LSPFramer.maxHeaderBytes + 10))
        guard case .error = f.next() else { Issue.record("expected an error"); return }
        f.append(framed("{}"))
        #expect(drain(&f) == [.message(Array("{}".utf8))])
    }

    @Test func decodeClassifiesMessages() throws {
        func d(_ s: String) -> Result<JSONRPCMessage, JSONRPCFailure> { JSONRPCMessage.decode(Array(s.utf8)) }
        #expect(try d(#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#).get() == .request(id: 3, method: "shutdown", params: .null))
        #expect(try d(#"{"jsonrpc":"2.0","method":"exit"}"#).get() == .notification(method: "exit", params: .null))
        #expect(try d(#"{"jsonrpc":"2.0","id":"x","result":null}"#).get() == .response(id: "x", result: .null, error: nil))
        if case .failure(let f) = d("{not json") { #expect(f.code == JSONRPCError.parseError) } else { Issue.record("parse error expected") }
        if case .failure(let f) = d("[1,2]") { #expect(f.code == JSONRPCError.invalidRequest) } else { Issue.record("invalid request expected") }
        if case .failure(let f) = d(#"{"id":{"a":1},"method":"x"}"#) { #expect(f.code == JSONRPCError.invalidRequest) } else { Issue.record("bad id expected") }
        if case .failure(let f) = d(#"{"id":4,"method":7}"#) {
            #expect(f.code == JSONRPCError.invalidRequest)
            #expect(f.id == 4)
        } else { Issue.record("bad method expected") }
    }
}

@Suite struct LSPTextBufferTests {
    /// The cursor gives exactly what `range(_:encoding:)` gives, for increasing, repeated, backward
    /// and multi-line ranges over text with 2-, 3- and 4-byte characters and CRLF lines.
    @Test func rangeCursorMatchesDirectRanges() {
        let text = "Café 😀 naïve\r\nsecond line — with ✓ marks\n\n\nlast 😀😀 line without end"
        let b = LSPTextBuffer(text)
        let n = b.bytes.count
        var rng = SystemRandomNumberGenerator()
        for encoding in [LSPPositionEncoding.utf8, .utf16] {
            var ranges: [Range<Int>] = []
            var at = 0
            for _ in 0..<400 {
                if Int.random(in: 0..<10, using: &rng) == 0 { at = Int.random(in: 0...n, using: &rng) }   // backward jumps too
                at = min(n, at + Int.random(in: 0...4, using: &rng))
                ranges.append(at..<min(n, at + Int.random(in: 0...30, using: &rng)))
            }
            var cursor = LSPTextBuffer.RangeCursor(b, encoding: encoding)
            for r in ranges {
                #expect(cursor.range(r) == b.range(r, encoding: encoding), "\(r) \(encoding)")
            }
        }
    }

    // "Café 😀 naïve" : é is 2 UTF-8 bytes / 1 UTF-16 unit; 😀 is 4 bytes / 2 units.
    let text = "# Tïtle\nCafé 😀 very good\n\nnext"

    @Test func positionsCountUTF16UnitsOrBytes() {
        let b = LSPTextBuffer(text)
        let offset = Array(text.utf8).count - "very good\n\nnext".utf8.count
        #expect(b.position(ofByte: offset, encoding: .utf16) == LSPPosition(line: 1, character: 8))
        #expect(b.position(ofByte: offset, encoding: .utf8) == LSPPosition(line: 1, character: 11))
        #expect(b.offset(of: LSPPosition(line: 1, character: 8), encoding: .utf16) == offset)
        #expect(b.offset(of: LSPPosition(line: 1, character: 11), encoding: .utf8) == offset)
        // Between the halves of the surrogate pair: after the emoji.
        #expect(b.offset(of: LSPPosition(line: 1, character: 6), encoding: .utf16) == offset - 1)
        // Past the line's end: the line's end; past the last line: the end.
        #expect(b.offset(of: LSPPosition(line: 0, character: 99), encoding: .utf16) == "# Tïtle".utf8.count)
        #expect(b.offset(of: LSPPosition(line: 9, character: 0), encoding: .utf16) == text.utf8.count)
    }

    @Test func incrementalEditsKeepLineStarts() {
        var b = LSPTextBuffer(text)
        b.apply(range: LSPRange(start: LSPPosition(line: 1, character: 8), end: LSPPosition(line: 1, character: 12)),
                text: "really\nquite", encoding: .utf16)
        #expect(String(decoding: b.bytes, as: UTF8.self) == "# Tïtle\nCafé 😀 really\nquite good\n\nnext")
        #expect(b.lineStarts == LSPTextBuffer(b.bytes).lineStarts)
        b.apply(range: LSPRange(start: LSPPosition(line: 0, character: 0), end: LSPPosition(line: 2, character: 0)),
                text: "", encoding: .utf16)
        #expect(String(decoding: b.bytes, as: UTF8.self) == "quite good\n\nnext")
        #expect(b.lineStarts == [0, 11, 12])
    }

    @Test func fileURIsArePercentDecoded() {
        #expect(LSPServer.path(fromURI: "file:///tmp/caf%C3%A9%20notes/a.md")?.display == "/tmp/café notes/a.md")
        #expect(LSPServer.path(fromURI: "untitled:1") == nil)
    }
}
