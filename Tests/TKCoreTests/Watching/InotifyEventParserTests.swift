import Testing
@testable import TKCore

/// Builds one `struct inotify_event` by hand: wd, mask, cookie, len, then `len` name bytes.
private func record(wd: Int32, mask: UInt32, cookie: UInt32 = 0, name: [UInt8] = [], length: Int? = nil) -> [UInt8] {
    var out: [UInt8] = []
    withUnsafeBytes(of: wd) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: mask) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: cookie) { out.append(contentsOf: $0) }
    let len = length ?? name.count
    withUnsafeBytes(of: UInt32(len)) { out.append(contentsOf: $0) }
    out.append(contentsOf: name)
    if len > name.count { out.append(contentsOf: [UInt8](repeating: 0, count: len - name.count)) }
    return out
}

@Suite struct InotifyEventParserTests {
    @Test func singleEventWithPaddedName() {
        // "note.md" is 7 bytes; the kernel pads to 16 with NULs.
        let bytes = record(wd: 3, mask: 0x100, name: Array("note.md".utf8), length: 16)
        let events = InotifyEventParser.parse(bytes)
        #expect(events == [InotifyEvent(watch: 3, mask: .create, name: "note.md")])
        #expect(events[0].name.count == 7)
    }

    @Test func nameFillingTheWholeLengthHasNoTerminator() {
        // A name exactly as long as `len` (no NUL at all) is kept whole.
        let bytes = record(wd: 1, mask: 0x2, name: Array("abcdefghijklmnop".utf8), length: 16)
        #expect(InotifyEventParser.parse(bytes).map(\.name) == [Array("abcdefghijklmnop".utf8)])
    }

    @Test func severalEventsInOneBufferKeepOrderAndCookies() {
        var bytes = record(wd: 2, mask: 0x40, cookie: 77, name: Array("note.md".utf8), length: 16)
        bytes += record(wd: 2, mask: 0x80, cookie: 77, name: Array("note.md~".utf8), length: 16)
        bytes += record(wd: 5, mask: 0x200, name: Array("a-much-longer-file-name.markdown".utf8), length: 48)
        bytes += record(wd: 2, mask: 0x400)  // DELETE_SELF: no name
        let events = InotifyEventParser.parse(bytes)
        #expect(events.count == 4)
        #expect(events[0] == InotifyEvent(watch: 2, mask: .movedFrom, cookie: 77, name: "note.md"))
        #expect(events[1] == InotifyEvent(watch: 2, mask: .movedTo, cookie: 77, name: "note.md~"))
        #expect(events[2] == InotifyEvent(watch: 5, mask: .delete, name: "a-much-longer-file-name.markdown"))
        #expect(events[3].name.isEmpty && events[3].mask == .deleteSelf)
    }

    @Test func nonUTF8NameKeepsExactBytes() {
        let name: [UInt8] = [0x62, 0x61, 0x64, 0xFF, 0xFE, 0x2E, 0x6D, 0x64]  // "bad\xff\xfe.md"
        let events = InotifyEventParser.parse(record(wd: 4, mask: 0x8, name: name, length: 16))
        #expect(events.count == 1)
        #expect(events[0].name == name)
        #expect(PathBytes(events[0].name).hasSuffix(".md"))
    }

    @Test func nfcAndNfdNamesStayDistinct() {
        let nfc = Array("caf\u{E9}.md".utf8)
        let nfd = Array("cafe\u{301}.md".utf8)
        let bytes = record(wd: 1, mask: 0x8, name: nfc, length: 16) + record(wd: 1, mask: 0x8, name: nfd, length: 16)
        let names = InotifyEventParser.parse(bytes).map(\.name)
        #expect(names == [nfc, nfd])
        #expect(names[0] != names[1])
    }

    @Test func queueOverflowHasNoWatchAndNoName() {
        let events = InotifyEventParser.parse(record(wd: -1, mask: 0x4000))
        #expect(events.count == 1)
        #expect(events[0].watch.rawValue == -1)
        #expect(events[0].mask.contains(.queueOverflow))
        #expect(events[0].name.isEmpty)
    }

    @Test func ignoredAndDirectoryFlags() {
        var bytes = record(wd: 9, mask: 0x8000)  // IN_IGNORED
        bytes += record(wd: 1, mask: 0x4000_0100, name: Array("sub".utf8), length: 16)  // CREATE|ISDIR
        let events = InotifyEventParser.parse(bytes)
        #expect(events[0].mask == .ignored && events[0].watch.rawValue == 9)
        #expect(events[1].mask == [.create, .isDirectory])
        #expect(events[1].mask.description == "CREATE|ISDIR")
    }

    @Test func truncatedTrailingEventIsDropped() {
        let whole = record(wd: 1, mask: 0x2, name: Array("a.md".utf8), length: 16)
        var bytes = whole + record(wd: 1, mask: 0x2, name: Array("b.md".utf8), length: 16)
        bytes.removeLast(5)  // the second record's name is cut short
        #expect(InotifyEventParser.parse(bytes).map(\.name) == [Array("a.md".utf8)])
        // Only part of a header.
        #expect(InotifyEventParser.parse(whole + [1, 0, 0]).count == 1)
        #expect(InotifyEventParser.parse([]).isEmpty)
    }

    @Test func hugeLengthFieldDoesNotCrash() {
        var bytes = record(wd: 1, mask: 0x2, name: [])
        bytes.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(InotifyEventParser.parse(bytes).isEmpty)
    }

    @Test func unalignedBufferParses() {
        // The parser must not assume 4-byte alignment of its input.
        let inner = record(wd: 7, mask: 0x80, cookie: 3, name: Array("x.md".utf8), length: 16)
        let shifted = [0xAA] + inner
        let events = shifted.withUnsafeBytes { raw in
            InotifyEventParser.parse(UnsafeRawBufferPointer(rebasing: raw[1...]))
        }
        #expect(events == [InotifyEvent(watch: 7, mask: .movedTo, cookie: 3, name: "x.md")])
    }

    @Test func encodeRoundTrips() {
        let events = [
            InotifyEvent(watch: 1, mask: [.create, .isDirectory], name: "dir"),
            InotifyEvent(watch: 1, mask: .movedFrom, cookie: 42, name: "old.md"),
            InotifyEvent(watch: WatchDescriptor(rawValue: -1), mask: .queueOverflow),
            InotifyEvent(watch: WatchDescriptor(rawValue: 2), mask: .closeWrite, name: [0xC3, 0x28, 0x2E, 0x6D, 0x64]),
        ]
        let bytes = InotifyEventParser.encode(events)
        #expect(bytes.count % 4 == 0)
        #expect(InotifyEventParser.parse(bytes) == events)
    }

    @Test func maskDescriptionNamesUnknownBits() {
        #expect(InotifyEvent.Mask(rawValue: 0).description == "0")
        #expect(InotifyEvent.Mask([.movedTo, .isDirectory]).description == "MOVED_TO|ISDIR")
        #expect(InotifyEvent.Mask(rawValue: 0x0008_0000).description == "0x80000")
        #expect(InotifyEvent.Mask.pathDirty.contains(.closeWrite))
        #expect(!InotifyEvent.Mask.pathDirty.contains(.access))
    }
}
