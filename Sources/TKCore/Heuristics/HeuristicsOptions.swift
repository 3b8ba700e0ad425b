/// A phrase-based rule plugged in from outside the built-in tables (for example an advisor role's tips).
public struct PhraseRule: Sendable, Equatable, Codable {
    /// The words to find, case-insensitive (`"circle back"`); punctuation in it may also appear in the text.
    public var phrase: String
    /// What to do, shown to the writer.
    public var message: String
    public var category: FindingCategory
    /// Rule id reported in findings and accepted by `disabled` and ignore comments.
    public var rule: String
    public var severity: Severity
    public var replacements: [String]

    public init(phrase: String, message: String, category: FindingCategory = .other, rule: String = "tip",
                severity: Severity = .suggestion, replacements: [String] = []) {
        self.phrase = phrase; self.message = message; self.category = category; self.rule = rule
        self.severity = severity; self.replacements = replacements
    }
}

/// Settings of the quick heuristics.
public struct HeuristicsOptions: Sendable, Equatable {
    /// Sentences with more words than this are flagged.
    public var maxSentenceWords: Int
    /// Sentences whose Automated Readability Index grade is above this are flagged.
    public var maxGrade: Double
    /// Rule ids or category names that are switched off.
    public var disabled: Set<String>
    /// Words and phrases never flagged (character names, product names, terms of art).
    public var allow: [String]
    /// Extra phrase rules, e.g. the tips of the document's advisors.
    public var extraRules: [PhraseRule]
    /// Spell-check prose with Hunspell (category `spelling`).
    public var spelling: Bool
    /// Hunspell dictionary name for documents without a front matter `lang:` (`en_US`, `en_GB`, …).
    public var language: String
    /// At most this many spelling findings per document (most frequent unknown words first).
    public var maxSpellingFindings: Int
    /// The story type (`creative_fiction`, …) when the caller knows it; a document's front matter wins.
    /// In `creative_fiction` and `biography`, style rules leave what characters say alone.
    public var storyType: String?
    /// `language` was set on purpose (project config): no detection of the document's language.
    /// With false, an English `language` is the default and a document clearly in another language is
    /// spell-checked in that language (or not at all, when its dictionary is missing).
    public var languageIsExplicit: Bool

    public init(maxSentenceWords: Int = 30, maxGrade: Double = 16, disabled: Set<String> = [], allow: [String] = [],
                extraRules: [PhraseRule] = [], spelling: Bool = true, language: String = "en_US",
                maxSpellingFindings: Int = 40, storyType: String? = nil, languageIsExplicit: Bool = false) {
        self.maxSentenceWords = maxSentenceWords; self.maxGrade = maxGrade; self.disabled = disabled
        self.allow = allow; self.extraRules = extraRules
        self.spelling = spelling; self.language = language; self.maxSpellingFindings = maxSpellingFindings
        self.storyType = storyType; self.languageIsExplicit = languageIsExplicit
    }

    /// The 9 story type ids of the contract.
    public static let storyTypes = [
        "blog_personal", "blog_professional", "brd_prd", "creative_fiction", "biography",
        "academic_paper", "marketing_copy", "technical_docs", "email_memo",
    ]

    /// Options from the `heuristics` configuration and the story type's limits.
    ///
    /// The story type's limits (`thresholds` in the story-type table, what `story-types show` prints)
    /// are defaults, not a cap: a limit the user or the project configured explicitly wins, so
    /// `max_sentence_words: 40` loosens a story type's 35. Without a story type the configured (or
    /// built-in) limits apply. A story type without a grade limit (`max_grade: null`) checks none.
    /// - Parameters:
    ///   - configuration: `heuristics.max_sentence_words`, `max_grade`, `disabled`, `allow`, `spelling`, `lang`.
    ///   - storyType: the document's story type (style rules leave fiction dialogue alone).
    ///   - thresholds: the story type's limits, nil without a (known) story type.
    ///   - configured: dotted keys set by the user or project configuration (`heuristics.max_grade`);
    ///     the others hold built-in defaults, which a story type's limits replace.
    ///   - extraRules: phrase rules to add (advisor tips).
    public init(configuration c: Configuration.Heuristics, storyType: String? = nil,
                thresholds: HeuristicThresholds? = nil, configured: Set<String> = [], extraRules: [PhraseRule] = []) {
        var words = c.maxSentenceWords
        var grade = c.maxGrade
        if let t = thresholds {
            if !configured.contains("heuristics.max_sentence_words") { words = t.maxSentenceWords }
            if !configured.contains("heuristics.max_grade") { grade = t.maxGrade ?? Self.noGradeLimit }
        }
        self.init(maxSentenceWords: max(1, words), maxGrade: grade, disabled: Set(c.disabled), allow: c.allow,
                  extraRules: extraRules, spelling: c.spelling, language: c.lang, storyType: storyType,
                  languageIsExplicit: configured.contains("heuristics.lang"))
    }

    /// The grade limit of a story type that has none: no paragraph reaches it.
    public static let noGradeLimit: Double = 1000
}
