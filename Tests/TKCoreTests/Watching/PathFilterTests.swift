import Testing
@testable import TKCore

private func p(_ s: String) -> PathBytes { PathBytes(s) }

@Suite struct PathFilterTests {
    let filter = PathFilter.standard

    @Test(arguments: ["note.md", "a/b/c/deep.md", "UPPER.MD", "long.markdown", "with space.md", "caf\u{E9}.md",
                      "sed123.md", "4913.md", "x.tmp.md"])
    func documents(_ path: String) {
        #expect(filter.isDocument(p(path)))
        #expect(filter.isDocument(p(path), kind: .regular))
    }

    @Test(arguments: [
        // Not markdown.
        "note.txt", "note.md.txt", "notes", "md", "x.mdx",
        // Hidden files and anything below hidden folders.
        ".hidden.md", ".git/COMMIT_EDITMSG.md", ".tk/notes/a.md.review.json", ".tk/x.md", ".obsidian/workspace.md",
        "a/.private/b.md",
        // node_modules at any depth.
        "node_modules/pkg/readme.md", "docs/node_modules/x/y.md",
        // Editor temporary, swap, backup and lock names.
        "4913", "note.md~", ".note.md.swp", ".note.md.swo", ".note.md.swx", ".#note.md", "#note.md#",
        "note.md___jb_tmp___", "note.md___jb_old___", ".goutputstream-ABC123", "sedAbC123", "x.tmp", "note.md.tmp",
        "note.md.bak", "note.md.vsctmp",
    ])
    func notDocuments(_ path: String) {
        #expect(!filter.isDocument(p(path)))
    }

    @Test func symlinksAndOtherKindsAreNeverDocuments() {
        #expect(!filter.isDocument(p("link.md"), kind: .symlink))
        #expect(!filter.isDocument(p("dir.md"), kind: .directory))
        #expect(!filter.isDocument(p("fifo.md"), kind: .other))
    }

    @Test(arguments: [
        "4913", "note.md~", "~", ".note.md.swp", ".x.swo", ".#note.md", "#note.md#", "note.md___jb_tmp___",
        ".goutputstream-XYZ", "sedx1Y2z3", "a.vsctmp", "a.bak", "a.TMP", "a.tmp",
    ])
    func temporaryNames(_ name: String) {
        #expect(PathFilter.isTemporaryName(p(name)))
    }

    @Test(arguments: ["note.md", "sed.md", "sediment", "sedimentary", "#", "4914", "swap.md", ".md", "x#"])
    func notTemporaryNames(_ name: String) {
        #expect(!PathFilter.isTemporaryName(p(name)))
    }

    @Test func directoriesToDescend() {
        #expect(filter.shouldDescend(p("")))
        #expect(filter.shouldDescend(p("a/b/c")))
        #expect(!filter.shouldDescend(p(".git")))
        #expect(!filter.shouldDescend(p("a/.obsidian/plugins")))
        #expect(!filter.shouldDescend(p("node_modules")))
        #expect(!filter.shouldDescend(p("a/node_modules/b")))
        #expect(filter.shouldDescend(p("node_modules_not")))
        #expect(filter.shouldDescend(child: p("a/b")))
        #expect(!filter.shouldDescend(child: p("a/.b")))
    }

    @Test func ignoreGlobs() {
        let f = PathFilter(ignore: ["drafts/", "*.private.md", "archive/**", "/top.md", "**/secret/*.md", ""])
        #expect(f.ignore.count == 5)  // empty patterns are dropped
        // A folder-only pattern ignores the folder wherever it is, and everything in it.
        #expect(!f.shouldDescend(p("drafts")))
        #expect(!f.shouldDescend(p("book/drafts")))
        #expect(!f.isDocument(p("drafts/one.md")))
        #expect(!f.isDocument(p("book/drafts/one.md")))
        #expect(f.isDocument(p("drafts.md")))  // a file named like the folder stays
        // A name pattern matches at any depth.
        #expect(!f.isDocument(p("x.private.md")))
        #expect(!f.isDocument(p("a/b/x.private.md")))
        #expect(f.isDocument(p("private.md")))
        // `archive/**` ignores everything below archive/ at the top.
        #expect(!f.isDocument(p("archive/old.md")))
        #expect(!f.isDocument(p("archive/2020/old.md")))
        #expect(f.isDocument(p("notes/archive/old.md")))
        // Anchored: only at the top.
        #expect(!f.isDocument(p("top.md")))
        #expect(f.isDocument(p("sub/top.md")))
        // `**/` matches zero or more folders.
        #expect(!f.isDocument(p("secret/a.md")))
        #expect(!f.isDocument(p("x/y/secret/a.md")))
        #expect(f.isDocument(p("secret/deeper/a.md")))
        // The child checks agree with the full-path checks.
        #expect(!f.shouldDescend(child: p("book/drafts")))
        #expect(!f.isDocument(child: p("a/b/x.private.md")))
    }

    @Test func ignoreMatchesRawBytes() {
        // A pattern with NFC é does not match an NFD name: paths are bytes.
        let f = PathFilter(ignore: ["caf\u{E9}.md"])
        #expect(!f.isDocument(p("caf\u{E9}.md")))
        #expect(f.isDocument(p("cafe\u{301}.md")))
        // Non-UTF-8 names still work with `*`.
        let g = PathFilter(ignore: ["bad*"])
        #expect(!g.isDocument(PathBytes([0x62, 0x61, 0x64, 0xFF, 0x2E, 0x6D, 0x64])))
    }
}

@Suite struct GlobPatternTests {
    @Test(arguments: [
        ("*.md", "a.md", true), ("*.md", "a.markdown", false), ("*.md", ".md", true),
        ("?.md", "a.md", true), ("?.md", "ab.md", false),
        ("[abc].md", "b.md", true), ("[abc].md", "d.md", false), ("[a-c].md", "c.md", true),
        ("[!a-c].md", "c.md", false), ("[^a-c].md", "d.md", true), ("[].md", "[].md", true),
        ("\\*.md", "*.md", true), ("\\*.md", "a.md", false),
        ("draft*", "draft-2.md", true), ("*draft*", "my-draft-2.md", true),
    ])
    func names(_ pattern: String, _ name: String, _ expected: Bool) {
        #expect(GlobPattern(pattern).matches(p(name), isDirectory: false) == expected)
    }

    @Test func slashesAndAnchors() {
        let nested = GlobPattern("a/*.md")
        #expect(!nested.matchesNames)
        #expect(nested.matches(p("a/x.md"), isDirectory: false))
        #expect(!nested.matches(p("a/b/x.md"), isDirectory: false))  // `*` stops at `/`
        #expect(!nested.matches(p("z/a/x.md"), isDirectory: false))
        #expect(GlobPattern("./top.md").matches(p("top.md"), isDirectory: false))
        #expect(!GlobPattern("./top.md").matches(p("d/top.md"), isDirectory: false))
        #expect(GlobPattern("a/**/b.md").matches(p("a/b.md"), isDirectory: false))
        #expect(GlobPattern("a/**/b.md").matches(p("a/x/y/b.md"), isDirectory: false))
        #expect(GlobPattern("**").matches(p("any/thing/at/all.md"), isDirectory: false))
        #expect(!GlobPattern("a?b").matches(p("a/b"), isDirectory: false))
    }

    @Test func directoryOnlyPatterns() {
        let g = GlobPattern("build/")
        #expect(g.directoriesOnly)
        #expect(g.matches(p("build"), isDirectory: true))
        #expect(!g.matches(p("build"), isDirectory: false))
        #expect(g.matches(p("x/build"), isDirectory: true))
    }

    @Test func degenerateAndPathologicalPatterns() {
        #expect(!GlobPattern("").matches(p("a"), isDirectory: false))
        #expect(!GlobPattern("/").matches(p("a"), isDirectory: false))
        #expect(!GlobPattern("[abc").matches(p("a"), isDirectory: false))
        #expect(GlobPattern("[abc").matches(p("[abc"), isDirectory: false))
        // Memoised: many stars against a long non-matching name stays fast.
        let long = String(repeating: "a", count: 200) + "b"
        let clock = ContinuousClock()
        let t = clock.measure {
            #expect(!GlobPattern("*a*a*a*a*a*a*a*a*a*c").matches(p(long), isDirectory: false))
            #expect(!GlobPattern("**a**a**a**a**a**c").matches(p(long), isDirectory: false))
        }
        #expect(t < .seconds(1))
    }
}
