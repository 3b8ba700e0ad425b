import Yams
internal import CYaml

/// Reads a Vale rule file as Vale does (Go's `yaml.v2` `Unmarshal`): a key repeated in one mapping
/// is not an error there, the last value wins. Long `swap` lists often repeat a term by accident
/// (the proselint pack did for years); Yams refuses such a file, which would silently cost the team
/// the whole rule. On Yams' duplicate-key error the earlier entries of each repeated key (the key's
/// line and its indented value block) are dropped from the text, and it is read again.
enum ValeYAML {
    static func load(_ text: String) throws -> Any? {
        do {
            return try parse(text)
        } catch let YamlError.duplicatedKeysInMapping(duplicates, _) {
            var current = text
            var keys = Set(duplicates)
            // Each pass settles the repeated keys Yams named (nested mappings may name more).
            for _ in 0..<8 {
                guard let deduplicated = keepingLastOfRepeatedKeys(current, keys: keys), deduplicated != current else { break }
                current = deduplicated
                do {
                    return try parse(current)
                } catch let YamlError.duplicatedKeysInMapping(more, _) {
                    keys.formUnion(more)
                } catch {
                    break
                }
            }
            return try parse(text)   // the original error
        }
    }

    /// What `Yams.load(yaml:)` gives, without its cost: Yams decides the type of every plain scalar
    /// by trying seven regular expressions on it (bool, int, float, null, timestamp, merge, value),
    /// a fifth of loading a pack. Here the tree is composed without that, and only a scalar that
    /// one of them could match (`mayBeTyped`) is handed to Yams' own resolver and constructor. A
    /// document with merge keys, aliases or tagged collections is loaded by Yams as it is.
    static func parse(_ text: String) throws -> Any? {
        if let value = fromEvents(text) { return value }
        return try composed(text)
    }

    /// `parse` through Yams' composed nodes (every case `fromEvents` declines).
    static func composed(_ text: String) throws -> Any? {
        guard let root = try Yams.compose(yaml: text, .basic, .default, .utf8) else { return nil }
        do { return try value(root) } catch is Unusual {
            return try Yams.load(yaml: text, .default, .default, .utf8)
        }
    }

    private struct Unusual: Error {}

    /// What `parse` gives, read from libyaml's events without building Yams' nodes (their marks,
    /// tags and styles, half of reading a pack): nil for anything but the plain case, which `parse`
    /// then reads as before — one document; no anchor, alias or explicit tag; keys that are scalars,
    /// none repeated in a mapping and none a merge key `<<`; no parse error.
    static func fromEvents(_ text: String) -> Any? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> Any? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            /// The next event's type, `event` holding it (nil on a parse error).
            func next() -> yaml_event_type_t? {
                yaml_event_delete(&event)
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                return event.type
            }
            defer { yaml_event_delete(&event) }
            /// The node starting at the current event; nil to decline.
            func node() -> Any? {
                switch event.type {
                case YAML_SCALAR_EVENT:
                    let sc = event.data.scalar
                    guard sc.anchor == nil, sc.tag == nil else { return nil }
                    let string = String(decoding: UnsafeBufferPointer(start: sc.value, count: sc.length), as: UTF8.self)
                    // A quoted or block scalar is a string; a plain one may be typed (Yams' resolver).
                    if sc.style != YAML_PLAIN_SCALAR_STYLE || !mayBeTyped(string) { return string }
                    return Node.scalar(Node.Scalar(string, Tag(.implicit), .plain)).any
                case YAML_SEQUENCE_START_EVENT:
                    let sq = event.data.sequence_start
                    guard sq.anchor == nil, sq.implicit != 0 else { return nil }
                    var out: [Any] = []
                    while true {
                        guard let t = next() else { return nil }
                        if t == YAML_SEQUENCE_END_EVENT { return out }
                        guard let v = node() else { return nil }
                        out.append(v)
                    }
                case YAML_MAPPING_START_EVENT:
                    let mp = event.data.mapping_start
                    guard mp.anchor == nil, mp.implicit != 0 else { return nil }
                    var out: [AnyHashable: Any] = [:]
                    while true {
                        guard let t = next() else { return nil }
                        if t == YAML_MAPPING_END_EVENT { return out }
                        guard t == YAML_SCALAR_EVENT, event.data.scalar.anchor == nil, event.data.scalar.tag == nil else { return nil }
                        let sc = event.data.scalar
                        let key = String(decoding: UnsafeBufferPointer(start: sc.value, count: sc.length), as: UTF8.self)
                        if key == "<<" && sc.style == YAML_PLAIN_SCALAR_STYLE { return nil }
                        if out[key] != nil { return nil }   // a repeated key: Yams' error and the reading that follows it
                        guard next() != nil, let v = node() else { return nil }
                        out[key] = v
                    }
                default:
                    return nil
                }
            }
            guard next() == YAML_STREAM_START_EVENT, next() == YAML_DOCUMENT_START_EVENT, next() != nil,
                  let root = node(), next() == YAML_DOCUMENT_END_EVENT, next() == YAML_STREAM_END_EVENT else { return nil }
            return root
        }
    }

    private static func value(_ node: Node) throws -> Any {
        switch node {
        case .scalar(let s):
            guard s.tag.description == Tag.Name.implicit.rawValue else { return node.any }
            if s.style != .plain || !mayBeTyped(s.string) { return s.string }
            return Node.scalar(Node.Scalar(s.string, Tag(.implicit), s.style)).any
        case .mapping(let m):
            guard [Tag.Name.implicit.rawValue, Tag.Name.map.rawValue].contains(m.tag.description) else { throw Unusual() }
            var out: [AnyHashable: Any] = [:]
            for (k, v) in m {
                // Yams takes a key's text as it is; `<<` merges another mapping in.
                guard case .scalar(let key) = k, !(key.string == "<<" && key.style == .plain) else { throw Unusual() }
                out[key.string] = try value(v)
            }
            return out
        case .sequence(let q):
            guard [Tag.Name.implicit.rawValue, Tag.Name.seq.rawValue].contains(q.tag.description) else { throw Unusual() }
            return try q.map(value)
        case .alias:
            throw Unusual()
        }
    }

    static let typedWords: Set<String> = ["yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
                                          "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL"]

    /// Whether one of Yams' default resolver rules could match `s` (each starts with a digit, a
    /// sign, a dot, `~`, `<<` or `=`, or is one of `typedWords` or empty).
    static func mayBeTyped(_ s: String) -> Bool {
        guard let first = s.utf8.first else { return true }
        return "0123456789+-.~<=".utf8.contains(first) || typedWords.contains(s)
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
