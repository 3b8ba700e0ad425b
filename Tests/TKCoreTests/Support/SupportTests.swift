import Foundation
import Testing
@testable import TKCore

@Suite struct SHA256Tests {
    @Test("known vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func vectors(input: String, expected: String) {
        #expect(SHA256Digest.hex(Array(input.utf8)) == expected)
    }

    @Test func millionA() {
        #expect(SHA256Digest.hex([UInt8](repeating: 97, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite struct PathBytesTests {
    @Test func nfcAndNfdAreDistinct() {
        let nfc = PathBytes("caf\u{e9}.md")
        let nfd = PathBytes("cafe\u{301}.md")
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
    }

    @Test func relative() {
        let root = PathBytes("/a/b")
        #expect(PathBytes("/a/b/c/d.md").relative(to: root) == PathBytes("c/d.md"))
        #expect(PathBytes("/a/bc/d.md").relative(to: root) == nil)
        #expect(PathBytes("/a/b/c/d.md").parent == PathBytes("/a/b/c"))
    }
}

@Suite struct ConfigurationTests {
    @Test func defaultsDecode() throws {
        let c = Configuration.defaults
        #expect(c.watch.settleMs == 300)
        #expect(c.review.dailyBudgetUsd == 1.0)
        #expect(c.providers.anthropic.model == "claude-sonnet-4-6")
    }

    @Test func layersAndSources() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tkcfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let user = dir.appendingPathComponent("config.json")
        try Data(#"{"review": {"quiet_seconds": 5}, "watch": {"settle_ms": "oops"}}"#.utf8).write(to: user)
        let paths = Paths(userConfig: PathBytes(user.path), configDirectory: PathBytes(dir.path),
                          dataDirectory: PathBytes(dir.path), runtimeDirectory: PathBytes(dir.path))
        let loaded = ConfigurationLoader.load(paths: paths, environment: ["TK_MODEL": "m1"])
        // A wrong type makes the whole user layer be ignored with a clear problem.
        #expect(loaded.config.review.quietSeconds == 60)
        #expect(loaded.problems.count == 1)
        #expect(loaded.problems[0].contains("watch.settle_ms must be a number"))
        #expect(loaded.config.model == "m1")
        #expect(loaded.sources["model"] == .env)
    }
}

/// Directory entries are read in place up to their NUL (`direntName`): every name length from 1 to
/// 255 bytes, UTF-8 and odd bytes included, comes back exactly, through both listings. (The old
/// copy of the whole 256-byte `d_name` read past a short last record of `readdir`'s buffer: an
/// intermittent SIGSEGV that `swift test --sanitize=address` reports as a heap overflow.)
@Suite struct DirectoryEntryNameTests {
    @Test func everyNameLengthComesBackExactly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-dirent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var want = Set<[UInt8]>()
        for n in 1...255 {
            var name = Array(String(repeating: "é", count: n / 2).utf8)
            if n % 2 == 1 { name.append(n % 3 == 0 ? 0xFF : 0x61) }   // an invalid UTF-8 byte now and then
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            want.insert(name)
            let path = PathBytes(dir.path).appending(PathBytes(name))
            let fd = path.withCString { open($0, O_CREAT | O_WRONLY, 0o644) }
            #expect(fd >= 0)
            close(fd)
        }
        let listed = try FileSystem.list(PathBytes(dir.path)).map { $0.name.bytes }
        #expect(Set(listed) == want && listed.count == want.count)
        let entries = try DirectoryListing.entries(of: PathBytes(dir.path)).map(\.name.bytes)
        #expect(Set(entries) == want && entries.count == want.count)
    }

    /// The crash itself, made deterministic: a short record whose name ends 4 bytes before an
    /// unreadable page, as `readdir`'s last record can end before unmapped memory. Reading the
    /// declared 256-byte `d_name` would fault here (the test process would die); `direntName` reads
    /// only up to the NUL.
    @Test func aShortLastRecordIsReadInPlace() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let base = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            Issue.record("mmap failed")
            return
        }
        defer { munmap(base, 2 * page) }
        #expect(mprotect(base + page, page, PROT_NONE) == 0)
        let nameOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
        let record = base + page - nameOffset - 4
        let name = record.advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
        for (i, b) in Array("abc".utf8).enumerated() { name[i] = b }
        name[3] = 0
        #expect(direntName(record.assumingMemoryBound(to: dirent.self)) == Array("abc".utf8))
    }
}
