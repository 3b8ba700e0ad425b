/// A `watch.ignore` pattern, matched against raw path bytes.
///
/// Syntax (fnmatch-style, like `.gitignore`): `*` matches any bytes except `/`, `?` one byte
/// except `/`, `[abc]`, `[a-z]`, `[!abc]` (or `[^abc]`) a byte class, `\x` a literal `x`, and
/// `**` any bytes including `/` (`a/**/b` also matches `a/b`). A pattern without a `/` is
/// matched against every single name in the path; with a `/` it is matched against the whole
/// path relative to the project (a leading `/` or `./` is dropped). A trailing `/` matches
/// folders only.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    public let source: String
    /// The pattern bytes, without a leading `/`/`./` and trailing `/`.
    let pattern: [UInt8]
    /// Matched against each single name rather than the relative path.
    public let matchesNames: Bool
    public let directoriesOnly: Bool

    public init(_ source: String) {
        self.source = source
        var bytes = Array(source.utf8)
        var directoriesOnly = false
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") {
            bytes.removeLast()
            directoriesOnly = true
        }
        var anchored = false
        if bytes.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) {
            bytes.removeFirst(2)
            anchored = true
        }
        while bytes.first == UInt8(ascii: "/") {
            bytes.removeFirst()
            anchored = true
        }
        self.pattern = bytes
        self.directoriesOnly = directoriesOnly
        self.matchesNames = !anchored && !bytes.contains(UInt8(ascii: "/"))
    }

    public var description: String { source }

    /// Whether the pattern matches `relativePath` itself (not its ancestors).
    /// - Parameters:
    ///   - relativePath: the path relative to the project, no leading `/`.
    ///   - isDirectory: whether the path is a folder (for patterns ending in `/`).
    public func matches(_ relativePath: PathBytes, isDirectory: Bool) -> Bool {
        if pattern.isEmpty { return false }
        if directoriesOnly && !isDirectory { return false }
        if matchesNames { return Self.match(pattern, relativePath.lastComponent.bytes) }
        return Self.match(pattern, relativePath.bytes)
    }

    /// Matches bytes against a glob with `*`, `**`, `?`, classes and escapes.
    static func match(_ p: [UInt8], _ s: [UInt8]) -> Bool {
        // memo[pi * (s.count + 1) + si]: 0 unknown, 1 false, 2 true.
        var memo = [UInt8](repeating: 0, count: (p.count + 1) * (s.count + 1))
        return matchFrom(p, 0, s, 0, &memo)
    }

    private static let slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*")

    private static func matchFrom(_ p: [UInt8], _ pi0: Int, _ s: [UInt8], _ si0: Int, _ memo: inout [UInt8]) -> Bool {
        let key = pi0 * (s.count + 1) + si0
        if memo[key] != 0 { return memo[key] == 2 }
        var result = false
        defer { memo[key] = result ? 2 : 1 }
        let pi = pi0
        let si = si0
        if pi == p.count {
            result = si == s.count
            return result
        }
        let c = p[pi]
        if c == star {
            let isDouble = pi + 1 < p.count && p[pi + 1] == star
            if isDouble {
                var next = pi + 2
                while next < p.count && p[next] == star { next += 1 }
                // `**/` may match zero folders.
                if next < p.count && p[next] == slash && matchFrom(p, next + 1, s, si, &memo) {
                    result = true
                    return result
                }
                var k = si
                while true {
                    if matchFrom(p, next, s, k, &memo) {
                        result = true
                        return result
                    }
                    if k == s.count { break }
                    k += 1
                }
                return result
            }
            var k = si
            while true {
                if matchFrom(p, pi + 1, s, k, &memo) {
                    result = true
                    return result
                }
                if k == s.count || s[k] == slash { break }
                k += 1
            }
            return result
        }
        guard si < s.count else { return result }
        let b = s[si]
        switch c {
        case UInt8(ascii: "?"):
            result = b != slash && matchFrom(p, pi + 1, s, si + 1, &memo)
        case UInt8(ascii: "["):
            if let (matched, end) = matchClass(p, pi, b) {
                result = matched && b != slash && matchFrom(p, end, s, si + 1, &memo)
            } else {
                result = b == c && matchFrom(p, pi + 1, s, si + 1, &memo)
            }
        case UInt8(ascii: "\\") where pi + 1 < p.count:
            result = b == p[pi + 1] && matchFrom(p, pi + 2, s, si + 1, &memo)
        default:
            result = b == c && matchFrom(p, pi + 1, s, si + 1, &memo)
        }
        return result
    }

    /// Matches `b` against the class starting at `p[start] == "["`; nil when the class is unterminated.
    private static func matchClass(_ p: [UInt8], _ start: Int, _ b: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count && (p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^")) {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < p.count {
            var lo = p[i]
            if lo == UInt8(ascii: "]") && !first { return (matched != negate, i + 1) }
            first = false
            if lo == UInt8(ascii: "\\") && i + 1 < p.count {
                i += 1
                lo = p[i]
            }
            var hi = lo
            if i + 2 < p.count && p[i + 1] == UInt8(ascii: "-") && p[i + 2] != UInt8(ascii: "]") {
                hi = p[i + 2]
                i += 2
            }
            if lo <= b && b <= hi { matched = true }
            i += 1
        }
        return nil
    }
}
