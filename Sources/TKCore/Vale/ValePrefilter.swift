import Foundation

/// The literals a pattern cannot match without: a set of lowercase ASCII strings, one of which
/// occurs (ignoring ASCII case) in every match of the pattern. `nil` when the pattern gives none
/// (a class, an optional part, a construct this reader does not know): then it always runs.
///
/// A necessary condition only, so a block that holds none of a pattern's literals cannot match
/// it, whatever its flags (`(?i)` or not): skipping the regex there changes no result.
enum ValeLiterals {
    /// What a node of the pattern tells about its matches.
    enum Info: Equatable {
        /// Matches exactly one of these strings.
        case exact(Set<String>)
        /// Every match contains one of these strings.
        case inexact(Set<String>)
        /// Nothing known.
        case any
    }

    static let maxExact = 256

    /// - Parameter literalRuns: read a run of plain characters as one literal (false: one by one, as
    ///   the tests compare).
    static func required(_ pattern: String, literalRuns: Bool = true) -> Set<String>? {
        var p = Parser(Array(pattern.unicodeScalars), literalRuns: literalRuns)
        guard let info = p.alternation(), p.i == p.s.count, !p.failed else { return nil }
        let set: Set<String>
        switch info {
        case .exact(let s), .inexact(let s): set = s
        case .any: return nil
        }
        if set.isEmpty || set.contains("") { return nil }
        return set
    }

    /// Where every match of a pattern starts: within `skip` UTF-16 units of the match's start, one of
    /// `literals` (lowercase ASCII, none empty) begins. The pattern then needs trying only at those
    /// places (each occurrence of a literal, and up to `skip` units before it). nil when the
    /// pattern gives no such set: an alternative that can start anywhere, a repetition in front.
    static func leads(_ pattern: String, literalRuns: Bool = true) -> (literals: Set<String>, skip: Int)? {
        var p = Parser(Array(pattern.unicodeScalars), literalRuns: literalRuns)
        guard let lead = p.leadAlternation(), p.i == p.s.count, !p.failed,
              let set = lead.literals, !set.isEmpty, !set.contains(""), lead.skip <= maxSkip else { return nil }
        return (set, lead.skip)
    }

    static let maxSkip = 8

    /// What the start of a node's matches looks like, for `leads`: up to `skip` UTF-16 units, then
    /// one of `literals` (nil: none known, the node only skips). `complete`: nothing follows the
    /// literal within the node, so the next node's literals extend it.
    struct Lead {
        var skip: Int
        var literals: Set<String>?
        var complete: Bool

        /// Zero width: an assertion, a flag, an empty group.
        static let empty = Lead(skip: 0, literals: [""], complete: true)
        static func skipping(_ n: Int) -> Lead { Lead(skip: n, literals: nil, complete: false) }
        /// Any length: nothing after it leads (and a pattern that starts with it has no lead).
        static let anywhere = skipping(1 << 20)
        /// The literals are just the empty string (compared without building a set).
        var zeroWidth: Bool { if let l = literals { return l.count == 1 && l.first == "" } else { return false } }
        var onlySkips: Bool { literals == nil || zeroWidth }

        func then(_ b: Lead) -> Lead {
            if onlySkips {
                let more = b.onlySkips ? (b.zeroWidth ? literals : nil) : b.literals
                return Lead(skip: skip + b.skip, literals: more, complete: b.onlySkips ? complete && b.complete : b.complete)
            }
            guard complete, let mine = literals else { return self }
            if b.zeroWidth { return Lead(skip: skip, literals: mine, complete: b.complete) }
            guard b.skip == 0, let theirs = b.literals, mine.count * theirs.count <= maxExact else {
                return Lead(skip: skip, literals: mine, complete: false)
            }
            var next = Set<String>()
            for x in mine { for y in theirs { next.insert(x + y) } }
            return Lead(skip: skip, literals: next, complete: b.complete)
        }

        static func either(_ options: [Lead]) -> Lead? {
            if options.allSatisfy(\.onlySkips) {
                let widest = options.map(\.skip).max() ?? 0
                return options.allSatisfy({ $0.zeroWidth && $0.skip == 0 }) ? .empty : .skipping(widest)
            }
            var all = Set<String>()
            for o in options {
                guard let l = o.literals, !o.zeroWidth else { return nil }   // one alternative starts anywhere
                all.formUnion(l)
            }
            return Lead(skip: options.map(\.skip).max() ?? 0, literals: all, complete: options.allSatisfy(\.complete))
        }
    }

    /// How useful a set is as a requirement: its shortest literal, then fewer literals.
    static func score(_ s: Set<String>) -> (Int, Int) {
        (s.map(\.utf8.count).min() ?? 0, -s.count)
    }

    static func concat(_ parts: [Info]) -> Info {
        var cur: Set<String> = [""]
        var candidates: [Set<String>] = []
        var exact = true
        for part in parts {
            switch part {
            case .exact(let s):
                if cur.count * s.count <= maxExact {
                    var next = Set<String>()
                    for a in cur { for b in s { next.insert(a + b) } }
                    cur = next
                } else {
                    candidates.append(cur); cur = s; exact = false
                }
            case .inexact(let s):
                candidates.append(cur); candidates.append(s); cur = [""]; exact = false
            case .any:
                candidates.append(cur); cur = [""]; exact = false
            }
        }
        if exact { return .exact(cur) }
        candidates.append(cur)
        guard let best = candidates.max(by: { score($0) < score($1) }), score(best).0 > 0 else { return .any }
        return .inexact(best)
    }

    static func alternate(_ options: [Info]) -> Info {
        var all = Set<String>()
        var exact = true
        for o in options {
            switch o {
            case .exact(let s): all.formUnion(s)
            case .inexact(let s): all.formUnion(s); exact = false
            case .any: return .any
            }
        }
        if exact { return .exact(all) }
        return all.contains("") ? .any : .inexact(all)
    }

    /// A recursive-descent reader of the regexp2/ICU syntax Vale's rules use.
    struct Parser {
        let s: [Unicode.Scalar]
        let literalRuns: Bool
        var i = 0
        var failed = false
        init(_ s: [Unicode.Scalar], literalRuns: Bool = true) { self.s = s; self.literalRuns = literalRuns }

        var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

        mutating func alternation() -> Info? {
            var options: [Info] = []
            while true {
                guard let c = concatenation() else { return nil }
                options.append(c)
                if peek == "|" { i += 1; continue }
                break
            }
            return options.count == 1 ? options[0] : alternate(options)
        }

        mutating func concatenation() -> Info? {
            var parts: [Info] = []
            while let c = peek, c != "|", c != ")" {
                // A run of plain characters is one literal (what their products one by one make).
                if let run = literalRun() { parts.append(.exact([run])); continue }
                guard let atom = atom() else { return nil }
                guard let q = quantified(atom) else { return nil }
                parts.append(q)
            }
            return concat(parts)
        }

        /// Applies a quantifier following an atom, if any.
        mutating func quantified(_ atom: Info) -> Info? {
            var result = atom
            while let c = peek {
                var mn = 1
                if c == "?" || c == "*" { mn = 0; i += 1 }
                else if c == "+" { i += 1 }
                else if c == "{" {
                    var j = i + 1
                    var digits = ""
                    while j < s.count, s[j].properties.numericType == .decimal, s[j].isASCII { digits.unicodeScalars.append(s[j]); j += 1 }
                    guard !digits.isEmpty, j < s.count, s[j] == "}" || s[j] == "," else { failed = true; return nil }
                    while j < s.count, s[j] != "}" { j += 1 }
                    guard j < s.count else { failed = true; return nil }
                    mn = Int(digits) ?? 0
                    i = j + 1
                } else { break }
                if peek == "?" || peek == "+" { i += 1 } // lazy, possessive
                switch result {
                case .any: break
                case .exact(let set), .inexact(let set):
                    if mn == 0 { result = .any }
                    else if !(set.count == 1 && set.contains("")) { result = .inexact(set) }
                }
            }
            return result
        }

        static func literal(_ c: Unicode.Scalar) -> Info {
            guard c.isASCII else { return .any }
            return .exact([String(Character(c)).lowercased()])
        }

        /// Whether `atom` reads `c` as itself (its `default` case).
        static func isPlain(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "(", ")", "[", "\\", ".", "^", "$", "*", "+", "?", "{", "|": return false
            default: return true
            }
        }

        static func isQuantifier(_ c: Unicode.Scalar) -> Bool { c == "?" || c == "*" || c == "+" || c == "{" }

        /// Two or more plain ASCII characters from here, lowercased, none of them quantified (the last
        /// one before a quantifier is left to `atom`): nil, and nothing read, when there are fewer.
        mutating func literalRun() -> String? {
            guard literalRuns else { return nil }
            var j = i
            var bytes: [UInt8] = []
            while j < s.count, s[j].isASCII, Self.isPlain(s[j]), !(j + 1 < s.count && Self.isQuantifier(s[j + 1])) {
                let b = UInt8(s[j].value)
                bytes.append(b >= 65 && b <= 90 ? b | 0x20 : b)
                j += 1
            }
            guard bytes.count >= 2 else { return nil }
            i = j
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func atom() -> Info? {
            guard let c = peek else { return nil }
            switch c {
            case "(": return group()
            case "[": return charClass()
            case "\\": return escape(inClass: false).map { $0 ?? .any }
            case ".": i += 1; return .any
            case "^", "$": i += 1; return .exact([""])
            case "*", "+", "?", "{": failed = true; return nil
            default: i += 1; return Self.literal(c)
            }
        }

        /// An escape: `.some(nil)` for a class of characters, `.some(info)` for a literal or
        /// an assertion, nil when unknown.
        mutating func escape(inClass: Bool) -> Info?? {
            i += 1
            guard let c = peek else { failed = true; return nil }
            i += 1
            switch c {
            case "b", "B", "A", "z", "Z", "G": return inClass ? nil : .some(.exact([""]))
            case "d", "D", "w", "W", "s", "S", "h", "H", "v", "V", "R", "X": return .some(nil)
            case "p", "P":
                if peek == "{" { while let x = peek, x != "}" { i += 1 }; i += 1 } else { i += 1 }
                return .some(nil)
            case "n": return .some(.exact(["\n"]))
            case "t": return .some(.exact(["\t"]))
            case "r": return .some(.exact(["\r"]))
            default:
                if c.isASCII, !c.properties.isAlphabetic, c.properties.numericType == nil { return .some(Self.literal(c)) }
                failed = true
                return nil
            }
        }

        /// What a group's opening says about it.
        enum Opening { case group, lookaround, flagsOnly }

        /// Reads a group's opening, `(` and its `?…` part if any: nil (and `failed`) when unknown.
        mutating func opening() -> Opening? {
            i += 1 // (
            guard peek == "?" else { return .group }
            i += 1
            guard let c = peek else { failed = true; return nil }
            switch c {
            case ":", ">": i += 1
            case "=", "!": i += 1; return .lookaround
            case "<":
                i += 1
                if peek == "=" || peek == "!" { i += 1; return .lookaround }
                guard skipName(until: ">") else { return nil }
            case "P":
                i += 1
                guard peek == "<" else { failed = true; return nil }
                i += 1
                guard skipName(until: ">") else { return nil }
            case "'":
                i += 1
                guard skipName(until: "'") else { return nil }
            default:
                // Flags: (?i) (?-i) (?im-sx) or (?i: ...).
                while let f = peek, "imsnU-".unicodeScalars.contains(f) { i += 1 }
                if peek == ")" { i += 1; return .flagsOnly }
                if peek == ":" { i += 1 } else { failed = true; return nil }
            }
            return .group
        }

        mutating func group() -> Info? {
            guard let kind = opening() else { return nil }
            if kind == .flagsOnly { return .exact([""]) }
            guard let inner = alternation(), peek == ")" else { failed = true; return nil }
            i += 1
            return kind == .lookaround ? .exact([""]) : inner
        }

        // MARK: Leads (see `ValeLiterals.leads`)

        mutating func leadAlternation() -> Lead? {
            var options: [Lead] = []
            while true {
                guard let c = leadConcatenation() else { return nil }
                options.append(c)
                if peek == "|" { i += 1; continue }
                break
            }
            return options.count == 1 ? options[0] : Lead.either(options)
        }

        mutating func leadConcatenation() -> Lead? {
            var lead = Lead.empty
            while let c = peek, c != "|", c != ")" {
                if let run = literalRun() { lead = lead.then(Lead(skip: 0, literals: [run], complete: true)); continue }
                guard let atom = leadAtom(), let q = leadQuantified(atom) else { return nil }
                lead = lead.then(q)
            }
            return lead
        }

        mutating func leadQuantified(_ atom: Lead) -> Lead? {
            var result = atom
            while let c = peek {
                var mn = 1, mx: Int? = 1
                if c == "?" { mn = 0; i += 1 }
                else if c == "*" { mn = 0; mx = nil; i += 1 }
                else if c == "+" { mx = nil; i += 1 }
                else if c == "{" {
                    var j = i + 1
                    func number() -> Int? {
                        var d = ""
                        while j < s.count, s[j].isASCII, s[j].properties.numericType == .decimal { d.unicodeScalars.append(s[j]); j += 1 }
                        return Int(d)
                    }
                    guard let lo = number(), j < s.count else { failed = true; return nil }
                    mn = lo; mx = lo
                    if s[j] == "," { j += 1; mx = number() }
                    guard j < s.count, s[j] == "}" else { failed = true; return nil }
                    i = j + 1
                } else { break }
                if peek == "?" || peek == "+" { i += 1 } // lazy, possessive
                if result.onlySkips {
                    if result.zeroWidth && result.skip == 0 { result = .empty }
                    else if let mx, mx <= 4 { result = .skipping(result.skip * mx) }
                    else { result = .anywhere }
                } else if mn == 0 {
                    // Empty, or the literals: a literal before it still leads, extended or not.
                    guard result.skip == 0, var l = result.literals else { result = .anywhere; continue }
                    l.insert("")
                    result = Lead(skip: 0, literals: l, complete: mx == 1 && result.complete)
                } else if mx != 1 || mn != 1 {
                    result.complete = false
                }
            }
            return result
        }

        mutating func leadAtom() -> Lead? {
            guard let c = peek else { return nil }
            switch c {
            case "(": return leadGroup()
            case "[":
                guard let info = charClass() else { return nil }
                if case .exact(let set) = info { return Lead(skip: 0, literals: set, complete: true) }
                return .skipping(2)          // one character: at most two UTF-16 units
            case "\\":
                let start = i
                guard let e = escape(inClass: false) else { return nil }
                guard let info = e else { return .skipping(s[start + 1] == "s" ? 1 : 2) }
                if case .exact(let set) = info { return Lead(skip: 0, literals: set, complete: true) }
                return .skipping(2)
            case ".": i += 1; return .skipping(2)
            case "^", "$": i += 1; return .empty
            case "*", "+", "?", "{": failed = true; return nil
            default:
                i += 1
                guard c.isASCII else { return .skipping(2) }
                return Lead(skip: 0, literals: [String(Character(c)).lowercased()], complete: true)
            }
        }

        mutating func leadGroup() -> Lead? {
            guard let kind = opening() else { return nil }
            if kind == .flagsOnly { return .empty }
            guard let inner = leadAlternation(), peek == ")" else { failed = true; return nil }
            i += 1
            return kind == .lookaround ? .empty : inner
        }

        mutating func skipName(until end: Unicode.Scalar) -> Bool {
            while let c = peek, c != end {
                guard c.properties.isAlphabetic || c.properties.numericType == .decimal || c == "_" else { failed = true; return false }
                i += 1
            }
            guard peek == end else { failed = true; return false }
            i += 1
            return true
        }

        /// `[...]`: a literal when it holds one character (ignoring ASCII case), a few
        /// alternatives when it holds up to four, else any character.
        mutating func charClass() -> Info? {
            i += 1 // [
            var negated = false
            if peek == "^" { negated = true; i += 1 }
            var members = Set<String>()
            var unknown = false
            var first = true
            while let c = peek, c != "]" || first {
                first = false
                if c == "[" { unknown = true; if !skipNested() { return nil }; continue }
                var lo: Unicode.Scalar
                if c == "\\" {
                    guard let e = escape(inClass: true) else { return nil }
                    guard case .exact(let set)? = e, let one = set.first, set.count == 1, let sc = one.unicodeScalars.first else {
                        unknown = true; continue
                    }
                    lo = sc
                } else { lo = c; i += 1 }
                if peek == "-", i + 1 < s.count, s[i + 1] != "]" {
                    i += 1
                    var hi: Unicode.Scalar
                    if peek == "\\" {
                        guard let e = escape(inClass: true), case .exact(let set)? = e, let sc = set.first?.unicodeScalars.first else {
                            unknown = true; continue
                        }
                        hi = sc
                    } else { guard let h = peek else { failed = true; return nil }; hi = h; i += 1 }
                    if hi.value < lo.value || hi.value - lo.value > 8 { unknown = true; continue }
                    for v in lo.value...hi.value { if let u = Unicode.Scalar(v) { add(u, &members, &unknown) } }
                } else {
                    add(lo, &members, &unknown)
                }
            }
            guard peek == "]" else { failed = true; return nil }
            i += 1
            if negated || unknown || members.isEmpty || members.count > 4 { return .any }
            return .exact(members)
        }

        func add(_ c: Unicode.Scalar, _ members: inout Set<String>, _ unknown: inout Bool) {
            if c.isASCII { members.insert(String(Character(c)).lowercased()) } else { unknown = true }
        }

        /// Skips a nested set or a POSIX class inside a class.
        mutating func skipNested() -> Bool {
            var depth = 0
            while let c = peek {
                if c == "\\" { i += 2; continue }
                if c == "[" { depth += 1 } else if c == "]" { depth -= 1; if depth == 0 { i += 1; return true } }
                i += 1
            }
            failed = true
            return false
        }
    }
}

/// Every rule pattern's literals in one Aho–Corasick automaton over lowercased UTF-8 bytes: one
/// pass over a block tells which patterns can match in it at all.
struct ValePrefilter: Sendable {
    /// Pattern id of each prefiltered regex.
    private var ids: [ObjectIdentifier: Int] = [:]
    private var classOf = [UInt8](repeating: 0, count: 256)
    private var width = 1
    private var delta: [Int32] = []
    /// Per state `s`, the pattern ids whose literals end there: `outputIDs[outputStart[s]..<outputStart[s + 1]]`
    /// (one array, not one a state: the scan reads them at every byte).
    private var outputStart: [Int32] = []
    private var outputIDs: [Int32] = []
    /// Regexes run only where one of their leading literals starts, by anchor id.
    private var anchorIDs: [ObjectIdentifier: Int] = [:]
    /// Per state, the (anchor id, literal length) of the leading literals ending there, laid out as `outputIDs`.
    private var anchorStart: [Int32] = []
    private var anchorOut: [(id: Int32, length: Int32)] = []
    /// By anchor id: how far before a leading literal its matches may start (UTF-16 units).
    private var anchorSkip: [Int] = []
    var count: Int { ids.count }

    /// What one pass over a block found.
    struct Hits {
        /// By pattern id: one of its required literals occurs.
        var found: [Bool]
        /// By anchor id: UTF-16 offsets where one of its leading literals starts (unsorted).
        var starts: [[Int]]
    }

    init() {}

    /// What the automaton needs of one pattern: the literals every match holds one of, and those it
    /// starts with. Read from the pattern's source, so each rule file's patterns are read on the
    /// thread that compiles it (`ValeStyles.load`).
    struct Literals: Sendable {
        let required: Set<String>?
        let leads: (literals: Set<String>, skip: Int)?
        init(_ re: ValeRegex) {
            required = ValeLiterals.required(re.translated)
            leads = required == nil ? nil : ValeLiterals.leads(re.translated)
        }
    }

    /// Builds the automaton for `regexes` (those whose literals are unknown always run), with the
    /// literals already read for some of them.
    init(_ regexes: [ValeRegex], read: [ObjectIdentifier: Literals] = [:]) {
        var literals: [(String, Int)] = []
        var anchors: [(String, Int)] = []
        for re in regexes where ids[ObjectIdentifier(re)] == nil {
            let known = read[ObjectIdentifier(re)] ?? Literals(re)
            guard let set = known.required else { continue }
            let id = ids.count
            ids[ObjectIdentifier(re)] = id
            for l in set { literals.append((l, id)) }
            if let lead = known.leads {
                let aid = anchorIDs.count
                anchorIDs[ObjectIdentifier(re)] = aid
                anchorSkip.append(lead.skip)
                for l in lead.literals { anchors.append((l, aid)) }
            }
        }
        guard !literals.isEmpty else { return }
        // Alphabet: the bytes the literals use; everything else is class 0.
        var next = 1
        for (l, _) in literals + anchors { for b in l.utf8 where classOf[Int(b)] == 0 { classOf[Int(b)] = UInt8(truncatingIfNeeded: next); next += 1 } }
        guard next < 256 else { ids = [:]; return }
        width = next
        // Trie: `width` entries per state, in one array (a state's own array each cost an allocation).
        var trie = [Int32](repeating: -1, count: width)
        var states = 1
        var out: [[Int32]] = [[]]
        var aout: [[(Int32, Int32)]] = [[]]
        func insert(_ l: String) -> Int {
            var st = 0
            for b in l.utf8 {
                let c = Int(classOf[Int(b)])
                if trie[st * width + c] < 0 {
                    trie[st * width + c] = Int32(states)
                    states += 1
                    trie.append(contentsOf: repeatElement(-1, count: width)); out.append([]); aout.append([])
                }
                st = Int(trie[st * width + c])
            }
            return st
        }
        for (l, id) in literals {
            let st = insert(l)
            if !out[st].contains(Int32(id)) { out[st].append(Int32(id)) }
        }
        for (l, aid) in anchors {
            let st = insert(l)
            aout[st].append((Int32(aid), Int32(l.utf8.count)))
        }
        // Failure links, breadth first, into a complete transition table (the trie's array, filled in).
        let n = states
        var table = trie
        trie = []
        var fail = [Int32](repeating: 0, count: n)
        var queue: [Int] = []
        queue.reserveCapacity(n)
        for c in 0..<width {
            let t = table[c]
            if t >= 0 { queue.append(Int(t)) } else { table[c] = 0 }
        }
        var head = 0
        let w = width
        // The rows are filled in place (a pack's thousands of literals make tens of thousands of
        // states, each a row of the alphabet's width: the checked, copy-on-write accesses of the
        // arrays were most of building the automaton, at every start).
        table.withUnsafeMutableBufferPointer { table in
            fail.withUnsafeMutableBufferPointer { fail in
                while head < queue.count {
                    let st = queue[head]; head += 1
                    let f = Int(fail[st])
                    if !out[f].isEmpty { for id in out[f] where !out[st].contains(id) { out[st].append(id) } }
                    if !aout[f].isEmpty { aout[st] += aout[f] }
                    let row = st * w, failRow = f * w
                    for c in 0..<w {
                        let t = table[row + c]
                        if t >= 0 {
                            fail[Int(t)] = table[failRow + c]
                            queue.append(Int(t))
                        } else {
                            table[row + c] = table[failRow + c]
                        }
                    }
                }
            }
        }
        delta = table
        outputStart = [0]
        anchorStart = [0]
        outputStart.reserveCapacity(n + 1)
        anchorStart.reserveCapacity(n + 1)
        for st in 0..<n {
            outputIDs += out[st]
            outputStart.append(Int32(outputIDs.count))
            for (id, length) in aout[st] { anchorOut.append((id: id, length: length)) }
            anchorStart.append(Int32(anchorOut.count))
        }
    }

    /// The ids of patterns whose literals occur in `text`, or nil when every pattern may match
    /// (a character whose case mapping reaches ASCII, such as `ſ` or `K`, could match a literal).
    func hits(_ text: String) -> Hits? {
        guard !ids.isEmpty else { return nil }
        var found = [Bool](repeating: false, count: ids.count)
        var starts = [[Int]](repeating: [], count: anchorIDs.count)
        var st = 0
        var nonASCII = false
        var u16 = 0 // UTF-16 offset after the current byte
        let width = width
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) {
            found.withUnsafeMutableBufferPointer { found in
            outputIDs.withUnsafeBufferPointer { outputIDs in
            delta.withUnsafeBufferPointer { delta in
            classOf.withUnsafeBufferPointer { classOf in
            outputStart.withUnsafeBufferPointer { outputStart in
            anchorStart.withUnsafeBufferPointer { anchorStart in
                for b in bytes {
                    if b >= 0x80 {
                        // Literals are ASCII: none spans a non-ASCII character.
                        nonASCII = true
                        st = 0
                        if b >= 0xF0 { u16 += 2 } else if b >= 0xC0 { u16 += 1 }
                        continue
                    }
                    u16 += 1
                    let lower = b >= 65 && b <= 90 ? b | 0x20 : b
                    st = Int(delta[st * width + Int(classOf[Int(lower)])])
                    // (A per-state "seen" array cost a few thousand entries a block, more than these loops.)
                    var k = Int(outputStart[st])
                    let kEnd = Int(outputStart[st + 1])
                    while k < kEnd { found[Int(outputIDs[k])] = true; k += 1 }
                    var a = Int(anchorStart[st])
                    let aEnd = Int(anchorStart[st + 1])
                    while a < aEnd {
                        let out = anchorOut[a]
                        starts[Int(out.id)].append(u16 - Int(out.length))
                        a += 1
                    }
                }
            }
            }
            }
            }
            }
            }
        }
        // The bytes in place (a native string's storage); a bridged one is copied first.
        if text.utf8.withContiguousStorageIfAvailable(scan) == nil { Array(text.utf8).withUnsafeBufferPointer(scan) }
        if nonASCII, text.unicodeScalars.contains(where: { !$0.isASCII && Self.mapsToASCII($0) }) { return nil }
        return Hits(found: found, starts: starts)
    }

    /// Where `re` can start in a text whose `hits` are `h` (UTF-16 offsets, sorted), or nil when
    /// its matches are to be searched everywhere.
    func starts(_ re: ValeRegex, _ h: Hits?) -> [Int]? {
        guard let h, let aid = anchorIDs[ObjectIdentifier(re)] else { return nil }
        let skip = anchorSkip[aid]
        // Sorted, each place once (the scan finds them nearly in order: sorting beats a Set).
        var all: [Int]
        if skip == 0 { all = h.starts[aid] } else {
            all = []
            all.reserveCapacity(h.starts[aid].count * (skip + 1))
            for p in h.starts[aid] { for k in 0...skip where p - k >= 0 { all.append(p - k) } }
        }
        all.sort()
        var n = 0
        for j in all.indices where n == 0 || all[n - 1] != all[j] { all[n] = all[j]; n += 1 }
        all.removeLast(all.count - n)
        return all
    }

    /// Whether a case mapping of `c` contains an ASCII character, or the upper case of its lower
    /// case does (`ẞ`: lower case `ß`, which ICU's `(?i)` folds to `ss`).
    static func mapsToASCII(_ c: Unicode.Scalar) -> Bool {
        let p = c.properties
        // Curly quotes, dashes, most of a page's other characters: no case mapping at all.
        guard p.changesWhenCaseMapped else { return false }
        let lower = p.lowercaseMapping
        for m in [lower, p.uppercaseMapping, p.titlecaseMapping] where m.unicodeScalars.contains(where: \.isASCII) {
            return true
        }
        return lower.unicodeScalars.contains { $0.properties.uppercaseMapping.unicodeScalars.contains(where: \.isASCII) }
    }

    /// Whether `re` may match a text whose `hits` are `found`.
    func mayMatch(_ re: ValeRegex, _ h: Hits?) -> Bool {
        guard let h, let id = ids[ObjectIdentifier(re)] else { return true }
        return h.found[id]
    }
}
