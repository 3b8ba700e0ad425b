/// A cheap language detector for prose: counts each language's commonest function words and its
/// telltale letters (é, ß, ñ…) among a passage's tokens. Enough to tell a French quotation or a German
/// page from English; it never guesses on thin evidence (an English passage stays English).
enum LanguageGuess {
    /// Languages told apart, with the Hunspell dictionary each is checked with.
    static let dictionaries: [String: String] = ["en": "en_US", "de": "de_DE", "fr": "fr_FR", "es": "es_ES", "it": "it_IT",
                                                  "nl": "nl_NL", "pt": "pt_PT"]
    static let names: [String: String] = ["en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
                                          "nl": "Dutch", "pt": "Portuguese"]
    static let codes = ["en", "de", "fr", "es", "it", "nl", "pt"]

    static let stopWords: [String] = [
        // en
        "the and is are was were of to that it for with on be this have not you he she they we but or at by from his "
            + "which would there their been has had will can what about when an who into than them these some "
            + "a in i as if so do my me her him its our your one all out up then us here",
        // de
        "der die das und ist nicht ein eine einen einem dem den des zu mit sich auf für von wir ich sie es auch wie noch "
            + "nur aber oder wenn dass bei aus nach kann sind wird werden war hat haben um im zum zur über durch dieser "
            + "diese alle mehr schon sehr wieder mich mir dich dir uns euch ihr ihre sein seine kein keine vom "
            // Function words German shares with English count for both (a German page is full of
            // "in … an", which counted for English alone).
            + "in an so was will",
        // fr
        "le la les et est une un des du de ne pas que qui dans pour sur avec ce cette il elle nous vous je tu mais ou où "
            + "sont être avoir fait très plus aux au par se sa son ses leur leurs c'est n'est qu'il comme tout mon ma mes "
            + "ton ta tes votre vos notre nos était sans même",
        // es
        "el la los las y es un una que de en por para con no se lo su sus pero como más muy está son del al le les "
            + "ya este esta esto ese eso también hay fue ser yo tu mi",
        // it
        "il la lo gli le e è un una che di da in per con non si del della dei delle sono ma come più anche questo "
            + "questa io tu lui noi voi loro nel nella alla al",
        // nl
        "de het een en is van in op te dat die niet met voor zijn er maar ook als bij aan om dan nog wel geen ze hij "
            + "wij jij ik",
        // pt
        "o a os as e é um uma que de do da dos das em no na por para com não se mas como mais muito está são ao foi "
            + "ser eu você",
    ]

    /// Word hash → bit set of the languages whose list holds it.
    static let table: [UInt64: UInt8] = {
        var t: [UInt64: UInt8] = [:]
        for (i, list) in stopWords.enumerated() {
            for w in list.split(separator: " ") { t[WordHash.of(w), default: 0] |= 1 << UInt8(i) }
        }
        return t
    }()

    /// Running evidence for one passage.
    struct Tally {
        var counts = [Int](repeating: 0, count: 7)
        var words = 0

        /// Adds a token: its stop-word memberships and its accented letters.
        mutating func add(_ p: UnsafeBufferPointer<UInt8>, _ t: Token) {
            if t.flags.contains(.opaque) || t.flags.contains(.numeric) { return }
            words += 1
            if let bits = LanguageGuess.table[t.hash] {
                for i in 0..<7 where bits & (1 << UInt8(i)) != 0 { counts[i] += 1 }
            }
            // Letters that English words rarely carry (UTF-8 two-byte Latin-1 range).
            var i = t.start
            var seen = false
            while i + 1 < t.end, !seen {
                if p[i] == 0xC3 {
                    seen = true
                    switch p[i + 1] {
                    case 0xA4, 0xB6, 0xBC, 0x9F, 0x84, 0x96, 0x9C: counts[1] += 2   // ä ö ü ß Ä Ö Ü
                    case 0xA9, 0xA8, 0xAA, 0xA0, 0xA7, 0xAB, 0xAE, 0xAF, 0xB4, 0xBB, 0xB9, 0x89: counts[2] += 2   // é è ê à ç ë î ï ô û ù É
                    case 0xB1, 0xA1, 0xAD, 0xB3, 0xBA: counts[3] += 1; counts[5] += 0   // ñ á í ó ú
                    case 0xA3, 0xB5: counts[6] += 2   // ã õ
                    default: seen = false
                    }
                }
                i += 1
            }
            // French elision: l'…, d'…, qu'…, j'…, n'…, c'…
            if t.end - t.start > 2, p[t.start + 1] == 39 || (t.end - t.start > 4 && p[t.start + 1] == 0xE2 && p[t.start + 3] == 0x99) {
                let c = p[t.start] | 0x20
                if c == 108 || c == 100 || c == 106 || c == 110 || c == 99 || c == 115 || c == 109 { counts[2] += 2 }
            }
        }

        /// The language code when the evidence points clearly away from English, else nil.
        var foreign: String? {
            var best = 1
            for i in 2..<7 where counts[i] > counts[best] { best = i }
            let score = counts[best]
            let en = counts[0]
            guard score >= 2, score > en + 1 || (score >= 2 && en == 0) else { return nil }
            // Long passages need the share to match: two hits in a long English sentence are loan words.
            if words >= 12, score * 6 < words { return nil }
            return LanguageGuess.codes[best]
        }

        /// The language code of a whole document (English unless another language clearly leads).
        var document: String {
            guard words >= 8 else { return "en" }
            var best = 1
            for i in 2..<7 where counts[i] > counts[best] { best = i }
            return counts[best] > counts[0] * 2 && counts[best] * 10 >= words ? LanguageGuess.codes[best] : "en"
        }
    }

    /// The two-letter code of a dictionary or language name (`de_DE` → `de`, `en-GB` → `en`).
    static func code(of language: String) -> String {
        String(language.prefix { $0 != "_" && $0 != "-" }).lowercased()
    }
}

extension Messages {
    static func otherLanguage(_ languages: [String], missing: [String]) -> String {
        let names = languages.map { LanguageGuess.names[$0] ?? $0 }.joined(separator: " and ")
        let packages = missing.map { "hunspell-" + $0.lowercased().replacingOccurrences(of: "_", with: "-") }.joined(separator: ", ")
        return "Passages in \(names) are not spell-checked: no Hunspell dictionary for them is installed "
            + "(install \(packages)), and the English rules leave them alone."
    }

    static func otherLanguageDocument(_ language: String, dictionary: String) -> String {
        let name = LanguageGuess.names[language] ?? language
        let package = "hunspell-" + dictionary.lowercased().replacingOccurrences(of: "_", with: "-")
        return "This document reads as \(name); no Hunspell dictionary \(dictionary) is installed (install \(package)), "
            + "so it is not spell-checked and the English rules leave it alone. Set lang: in the front matter to override."
    }
}
