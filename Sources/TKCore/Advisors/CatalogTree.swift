/// The built-in advisors and story types read from their JSON tree (`JSONSyntax.value`) field by
/// field, as their `Decodable` conformances read them through `JSONDecoder`.
///
/// Every command that derives a document needs the catalog at its start, and `JSONDecoder` spent
/// 8.7M instructions on its 39 KB (most of it the Swift runtime looking up, once per process, the
/// generic containers' conformances): a tenth of a `check` of a short file, on its critical path.
/// Anything this reader does not expect — a missing required field, a value of another type, an
/// unknown category — gives nil, and the caller decodes with `JSONDecoder` as before, which decides
/// and words the error. `CatalogTreeTests` compares the two on the built-in files and on variants.
enum CatalogTree {
    /// `{"roles": [Role]}`, or nil.
    static func roles(_ bytes: [UInt8]) -> [Role]? { list(bytes, key: "roles", read: role) }

    /// `{"story_types": [StoryType]}`, or nil.
    static func storyTypes(_ bytes: [UInt8]) -> [StoryType]? { list(bytes, key: "story_types", read: storyType) }

    /// The objects of the array under `key` of the top-level object, each read by `read`; nil when
    /// any of it is not as expected.
    static func list<T>(_ bytes: [UInt8], key: String, read: (Fields) -> T?) -> [T]? {
        guard let top = try? JSONSyntax.value(bytes), case .object(let o) = top, case .array(let items)? = o[key] else { return nil }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for v in items {
            guard case .object(let fields) = v, let item = read(Fields(fields)) else { return nil }
            out.append(item)
        }
        return out
    }

    /// One object's fields as `Decodable` reads them: a required field is present and of its type
    /// (null is not a value); an optional one is absent, null or of its type. A field that is not
    /// sets `failed`.
    struct Fields {
        let o: [String: JSONValue]
        var failed = false
        init(_ o: [String: JSONValue]) { self.o = o }

        mutating func string(_ k: String) -> String {
            if case .string(let s)? = o[k] { return s }
            failed = true
            return ""
        }

        mutating func optionalString(_ k: String) -> String? {
            switch o[k] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: failed = true; return nil
            }
        }

        mutating func strings(_ k: String) -> [String] {
            guard case .array(let a)? = o[k] else { failed = true; return [] }
            var out: [String] = []
            out.reserveCapacity(a.count)
            for v in a {
                guard case .string(let s) = v else { failed = true; return [] }
                out.append(s)
            }
            return out
        }

        mutating func optionalStrings(_ k: String) -> [String]? {
            switch o[k] {
            case nil, .null?: return nil
            default: return strings(k)
            }
        }

        mutating func optionalBool(_ k: String) -> Bool? {
            switch o[k] {
            case nil, .null?: return nil
            case .bool(let b)?: return b
            default: failed = true; return nil
            }
        }

        mutating func int(_ k: String) -> Int {
            if case .number(let n)? = o[k], let i = Int(exactly: n) { return i }
            failed = true
            return 0
        }

        mutating func optionalDouble(_ k: String) -> Double? {
            switch o[k] {
            case nil, .null?: return nil
            case .number(let n)?: return n
            default: failed = true; return nil
            }
        }

        /// An optional object field read by `read`; nil when absent or null.
        mutating func optionalObject<T>(_ k: String, _ read: (inout Fields) -> T) -> T? {
            switch o[k] {
            case nil, .null?: return nil
            case .object(let inner)?:
                var f = Fields(inner)
                let v = read(&f)
                if f.failed { failed = true }
                return v
            default: failed = true; return nil
            }
        }

        /// An optional array of objects, each read by `read` (nil from it: not as expected); nil
        /// when absent or null.
        mutating func optionalObjects<T>(_ k: String, _ read: (inout Fields) -> T?) -> [T]? {
            switch o[k] {
            case nil, .null?: return nil
            case .array(let a)?:
                var out: [T] = []
                out.reserveCapacity(a.count)
                for v in a {
                    guard case .object(let inner) = v else { failed = true; return nil }
                    var f = Fields(inner)
                    guard let item = read(&f), !f.failed else { failed = true; return nil }
                    out.append(item)
                }
                return out
            default: failed = true; return nil
            }
        }
    }

    /// `Role.init(from:)`.
    static func role(_ fields: Fields) -> Role? {
        var f = fields
        let id = f.string("id"), name = f.string("name")
        let perspective = f.optionalString("perspective")
        let description = f.optionalString("description") ?? perspective ?? ""
        let expertise = f.optionalStrings("expertise") ?? []
        let focusAreas = f.strings("focus_areas")
        let voice = f.optionalString("voice_and_tone") ?? ""
        let guidelines = f.optionalStrings("guidelines") ?? []
        let quickTips = f.optionalObjects("quick_tips") { t -> QuickTip? in
            let phrase = t.string("phrase"), message = t.string("message")
            let category = FindingCategory(rawValue: t.string("category"))
            let replacement = t.optionalString("replacement")
            return category.map { QuickTip(phrase: phrase, message: message, category: $0, replacement: replacement) }
        } ?? []
        let keywords = f.optionalStrings("keywords") ?? []
        let good = f.optionalStrings("good_examples") ?? []
        let bad = f.optionalStrings("bad_examples") ?? []
        let custom = f.optionalBool("custom") ?? false
        guard !f.failed else { return nil }
        return Role(id: id, name: name, description: description, expertise: expertise, focusAreas: focusAreas,
                    voiceAndTone: voice, guidelines: guidelines, quickTips: quickTips, keywords: keywords,
                    perspective: perspective, goodExamples: good, badExamples: bad, custom: custom)
    }

    /// `StoryType.init(from:)`, with `HeuristicThresholds`' and `StageFocus`' own decoding.
    static func storyType(_ fields: Fields) -> StoryType? {
        var f = fields
        let id = f.string("id"), name = f.string("name")
        let description = f.optionalString("description") ?? ""
        let advisors = f.strings("default_advisors")
        let genre = f.optionalString("genre_context") ?? ""
        let thresholds = f.optionalObject("thresholds") { t in
            HeuristicThresholds(maxSentenceWords: t.int("max_sentence_words"), maxGrade: t.optionalDouble("max_grade"))
        }
        let focus = f.optionalObject("review_focus") { s in
            StageFocus(early: s.string("early"), middle: s.string("middle"), late: s.string("late"))
        }
        let keywords = f.optionalStrings("keywords") ?? []
        guard !f.failed else { return nil }
        return StoryType(id: id, name: name, description: description, defaultAdvisors: advisors, genreContext: genre,
                         thresholds: thresholds ?? .default, reviewFocus: focus ?? .generic, keywords: keywords)
    }
}
