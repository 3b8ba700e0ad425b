import Yams

/// Reads a Vale rule file as Vale does (Go's `yaml.v2` `Unmarshal`): a key repeated in one mapping
/// is not an error there, the last value wins. Long `swap` lists often repeat a term by accident
/// (the proselint pack did for years); Yams refuses such a file, which would silently cost the team
/// the whole rule. On Yams' duplicate-key error the earlier entries of each repeated key (the key's
/// line and its indented value block) are dropped from the text, and it is read again.
enum ValeYAML {
    static func load(_ text: String) throws -> Any? {
        do {
            return try Yams.load(yaml: text)
        } catch let YamlError.duplicatedKeysInMapping(duplicates, _) {
            var current = text
            var keys = Set(duplicates)
            // Each pass settles the repeated keys Yams named (nested mappings may name more).
            for _ in 0..<8 {
                guard let deduplicated = keepingLastOfRepeatedKeys(current, keys: keys), deduplicated != current else { break }
                current = deduplicated
                do {
                    return try Yams.load(yaml: current)
                } catch let YamlError.duplicatedKeysInMapping(more, _) {
                    keys.formUnion(more)
                } catch {
                    break
                }
            }
            return try Yams.load(yaml: text)   // the original error
        }
    }

    /// The text without the earlier entries of each of `keys` repeated in one block mapping (same
    /// parent line, same indentation); nil when there is nothing to drop.
    static func keepingLastOfRepeatedKeys(_ text: String, keys: Set<String>) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indent(_ s: String) -> Int { s.prefix { $0 == " " }.count }
        func isContent(_ s: String) -> Bool {
            let t = s.drop { $0 == " " }
            return !t.isEmpty && !t.hasPrefix("#") && t != "\r"
        }
        // Entries of a repeated key, grouped by (parent line, indentation, key).
        struct Group: Hashable { var parent: Int; var indent: Int; var key: String }
        var groups: [Group: [Int]] = [:]
        var parents: [(indent: Int, line: Int)] = []
        for (i, line) in lines.enumerated() where isContent(line) {
            let n = indent(line)
            while let last = parents.last, last.indent >= n { parents.removeLast() }
            if let key = mappingKey(line.dropFirst(n)), keys.contains(key) {
                groups[Group(parent: parents.last?.line ?? -1, indent: n, key: key), default: []].append(i)
            }
            parents.append((n, i))
        }
        var drop = Set<Int>()
        for (g, at) in groups where at.count > 1 {
            for start in at.dropLast() {
                drop.insert(start)
                // The entry's value block: the lines indented deeper (or blank) that follow it.
                var j = start + 1
                while j < lines.count, !isContent(lines[j]) || indent(lines[j]) > g.indent {
                    if isContent(lines[j]) { drop.insert(j) }
                    j += 1
                }
            }
        }
        guard !drop.isEmpty else { return nil }
        return lines.enumerated().filter { !drop.contains($0.offset) }.map(\.element).joined(separator: "\n")
    }

    /// The key of a block-mapping line (`key: value`, `'key': value`, `"key":`), unquoted; nil for a
    /// list item or anything else.
    static func mappingKey(_ s: Substring) -> String? {
        guard let first = s.first, first != "-" else { return nil }
        if first == "'" || first == "\"" {
            var key = "", i = s.index(after: s.startIndex)
            while i < s.endIndex {
                let c = s[i]
                if c == first {
                    let next = s.index(after: i)
                    if first == "'", next < s.endIndex, s[next] == "'" { key.append("'"); i = s.index(after: next); continue }
                    let rest = s[next...].drop { $0 == " " }
                    return rest.first == ":" ? key : nil
                }
                if first == "\"", c == "\\" {
                    // Escapes other than a quote or a backslash are left to Yams' error.
                    let next = s.index(after: i)
                    guard next < s.endIndex, s[next] == "\"" || s[next] == "\\" else { return nil }
                    key.append(s[next]); i = s.index(after: next); continue
                }
                key.append(c); i = s.index(after: i)
            }
            return nil
        }
        // A plain key ends at the first ": " (or a ':' ending the line).
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == ":" {
                let next = s.index(after: i)
                if next == s.endIndex || s[next] == " " || s[next] == "\r" {
                    let key = s[..<i]
                    return key.hasSuffix(" ") ? String(key.reversed().drop { $0 == " " }.reversed()) : String(key)
                }
            }
            i = s.index(after: i)
        }
        return nil
    }
}
