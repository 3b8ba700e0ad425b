import Foundation

/// The commands the server runs for `workspace/executeCommand` (none is left to the client).
public enum LSPCommand: String, CaseIterable, Sendable {
    /// `[uri]`: queue a review round for the document now.
    case review = "tk.review"
    /// `[uri, suggestion id]`: record the suggestion accepted.
    case accept = "tk.accept"
    /// `[uri, suggestion id]`: record the suggestion skipped.
    case skip = "tk.skip"
    /// `[uri, {"stage", "story_type", "advisors", "draft_stage"}]`: `journey set`.
    case journeySet = "tk.journeySet"
    /// `[uri, word]`: append the word to `<project>/.tk/dictionary.txt`.
    case addToDictionary = "tk.addToDictionary"
}

extension LSPServer {
    // MARK: Code actions

    func codeActions(_ params: JSONValue) throws -> JSONValue {
        guard let uri = params["textDocument"]?["uri"]?.stringValue, let range = LSPRange(json: params["range"]) else {
            throw Self.fail(JSONRPCError.invalidParams, "textDocument/codeAction needs textDocument.uri and range")
        }
        if let only = params["context"]?["only"]?.arrayValue?.compactMap(\.stringValue), !only.isEmpty,
           !only.contains(where: { $0 == "quickfix" || $0 == "" }) {
            return []
        }
        guard documents[uri] != nil else { return [] }
        if documents[uri]!.dirty {
            _ = documents[uri]!.relint(actions: actions, settings: settings, encoding: encoding)
            scheduleVale(uri)
        }
        let doc = documents[uri]!
        var out: [JSONValue] = []
        var ignored: Set<String> = []
        // One action per title: overlapping diagnostics (a repeated phrase over a misspelt word,
        // the same word misspelt twice in the range) would otherwise offer the same fix twice.
        var titles: Set<String> = []
        func add(_ a: JSONValue) {
            guard let t = a["title"]?.stringValue, titles.insert(t).inserted else { return }
            out.append(a)
        }
        for d in doc.diagnostics {
            guard let r = LSPRange(json: d["range"]), r.overlaps(range), let data = d["data"] else { continue }
            switch data["kind"]?.stringValue {
            case "suggestion":
                guard let id = data["id"]?.stringValue, let s = doc.pending.first(where: { $0.id == id }) else { continue }
                let title = s.suggestedText.isEmpty ? "Accept: remove “\(LSPOpenDocument.short(s.originalText, max: 60))”"
                    : "Accept: “\(LSPOpenDocument.short(s.suggestedText, max: 60))”"
                add(action(title, diagnostic: d, edit: edit(uri, doc, r, s.suggestedText), preferred: true,
                           command: (.accept, [.string(uri), .string(id)])))
                add(action("Skip suggestion", diagnostic: d, edit: nil, preferred: false,
                           command: (.skip, [.string(uri), .string(id)])))
            case "finding":
                let rule = data["rule"]?.stringValue ?? ""
                let category = data["category"]?.stringValue ?? ""
                let text = String(decoding: doc.buffer.bytes[doc.buffer.byteRange(r, encoding: encoding)], as: UTF8.self)
                for (i, rep) in (data["replacements"]?.arrayValue?.compactMap(\.stringValue) ?? []).enumerated() {
                    let title = rep.isEmpty ? "Delete “\(LSPOpenDocument.short(text, max: 60))”" : "Replace with “\(rep)”"
                    add(action(title, diagnostic: d, edit: edit(uri, doc, r, rep), preferred: i == 0, command: nil))
                }
                if category == "spelling" || rule == "spelling" {
                    add(action("Add “\(text)” to the project dictionary", diagnostic: d, edit: nil, preferred: false,
                               command: (.addToDictionary, [.string(uri), .string(text)])))
                }
                if !rule.isEmpty, ignored.insert(rule).inserted {
                    let start = doc.buffer.byteRange(r, encoding: encoding).lowerBound
                    let (offset, comment) = Self.ignoreHere(doc.buffer.bytes, at: start, rule: rule)
                    let herePos = doc.buffer.position(ofByte: offset, encoding: encoding)
                    add(action("Ignore \(rule) here", diagnostic: d,
                               edit: workspaceEdit(uri, doc, LSPRange(start: herePos, end: herePos), comment), preferred: false, command: nil))
                    let at = Self.ignoreInsertionOffset(doc.buffer.bytes)
                    let pos = doc.buffer.position(ofByte: at, encoding: encoding)
                    let e = workspaceEdit(uri, doc, LSPRange(start: pos, end: pos), "<!-- tk-ignore-file \(rule) -->\n")
                    add(action("Ignore \(rule) in this file", diagnostic: d, edit: e, preferred: false, command: nil))
                }
            default:
                continue
            }
        }
        return .array(out)
    }

    func action(_ title: String, diagnostic: JSONValue, edit: JSONValue?, preferred: Bool,
                command: (LSPCommand, [JSONValue])?) -> JSONValue {
        var a: [String: JSONValue] = ["title": .string(title), "kind": "quickfix", "diagnostics": [diagnostic]]
        if preferred { a["isPreferred"] = true }
        if let edit { a["edit"] = edit }
        if let (c, args) = command {
            a["command"] = ["title": .string(title), "command": .string(c.rawValue), "arguments": .array(args)]
        }
        return .object(a)
    }

    func edit(_ uri: String, _ doc: LSPOpenDocument, _ r: LSPRange, _ text: String) -> JSONValue {
        workspaceEdit(uri, doc, r, text)
    }

    /// A workspace edit of one text edit, with the document version so a stale edit is refused.
    func workspaceEdit(_ uri: String, _ doc: LSPOpenDocument, _ r: LSPRange, _ text: String) -> JSONValue {
        let te: JSONValue = ["range": r.json, "newText": .string(text)]
        return ["changes": .object([uri: [te]])]
    }

    /// Where "Ignore RULE here" puts its `<!-- tk-ignore-next-line RULE -->` so that it silences
    /// the rule on the line holding byte `offset` only: on a line of its own before it when that
    /// line starts a block (the top of the file, after a blank line, a heading, a fence or the front
    /// matter), else at the end of the line before, inline, so that the paragraph is not split in two.
    /// - Returns: the byte offset to insert at and the text to insert.
    static func ignoreHere(_ bytes: [UInt8], at offset: Int, rule: String) -> (Int, String) {
        let comment = "<!-- tk-ignore-next-line \(rule) -->"
        var lineStart = max(0, min(offset, bytes.count))
        while lineStart > 0, bytes[lineStart - 1] != 10 { lineStart -= 1 }
        guard lineStart > 0 else { return (0, comment + "\n") }
        var prevEnd = lineStart - 1                    // the previous line's "\n"
        if prevEnd > 0, bytes[prevEnd - 1] == 13 { prevEnd -= 1 }
        var prevStart = prevEnd
        while prevStart > 0, bytes[prevStart - 1] != 10 { prevStart -= 1 }
        let previous = bytes[prevStart..<prevEnd].drop { $0 == 32 || $0 == 9 }
        // After a blank line, a heading, a fence or the front matter the line starts a block: the
        // comment takes a line of its own there (inline, it would change that line's meaning).
        let startsBlock = previous.isEmpty || previous.first == UInt8(ascii: "#") || previous.starts(with: Array("```".utf8))
            || previous.starts(with: Array("~~~".utf8)) || lineStart <= ignoreInsertionOffset(bytes)
        if startsBlock { return (lineStart, comment + "\n") }
        return (prevEnd, " " + comment)
    }

    /// Where an ignore comment goes: after the front matter, else at the top.
    static func ignoreInsertionOffset(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 4, bytes[0] == 45, bytes[1] == 45, bytes[2] == 45, bytes[3] == 10 || bytes[3] == 13 else { return 0 }
        var i = 4
        while i < bytes.count {
            let end = bytes[i...].firstIndex(of: 10) ?? bytes.count
            let line = bytes[i..<end].filter { $0 != 13 }
            if line.elementsEqual([45, 45, 45]) || line.elementsEqual([46, 46, 46]) { return min(bytes.count, end + 1) }
            i = end + 1
        }
        return 0
    }

    // MARK: Hover

    func hover(_ params: JSONValue) throws -> JSONValue {
        guard let uri = params["textDocument"]?["uri"]?.stringValue, let pos = LSPPosition(json: params["position"]) else {
            throw Self.fail(JSONRPCError.invalidParams, "textDocument/hover needs textDocument.uri and position")
        }
        guard let doc = documents[uri] else { return .null }
        // Every diagnostic under the cursor: the advisors' suggestions (their reasoning) first,
        // then the quick findings.
        var advice: [String] = []
        var rules: [String] = []
        var hit: LSPRange?
        var adviceHit: LSPRange?
        for d in doc.diagnostics {
            guard let r = LSPRange(json: d["range"]), r.start <= pos, pos <= r.end, let data = d["data"] else { continue }
            hit = hit ?? r
            if data["kind"]?.stringValue == "suggestion", let id = data["id"]?.stringValue,
               let s = doc.pending.first(where: { $0.id == id }) {
                adviceHit = adviceHit ?? r
                let advisor = actions.advisorName(s.advisorId)
                advice.append("""
                    **tk-agent · the \(advisor)** (\(s.type.rawValue), priority \(s.priority) of 5, confidence \(String(format: "%.0f", s.confidence * 100)) %)

                    \(s.reasoning)

                    “\(s.originalText)” → “\(s.suggestedText)”

                    _Suggestion \(s.id), round \(s.round)_
                    """)
            } else if let rule = data["rule"]?.stringValue {
                let category = data["category"]?.stringValue ?? rule
                let message = d["message"]?.stringValue ?? ""
                let text = "**tk-agent · \(rule)**: \(message)\n\n\(Self.explanation(category))\n\n"
                    + "_Silence it here with `<!-- tk-ignore-next-line \(rule) -->` on the line before, or everywhere with `<!-- tk-ignore-file \(rule) -->`._"
                if !rules.contains(text) { rules.append(text) }
            }
        }
        let parts = advice + rules
        guard !parts.isEmpty, let range = adviceHit ?? hit else { return .null }
        return ["contents": ["kind": "markdown", "value": .string(parts.joined(separator: "\n\n---\n\n"))], "range": range.json]
    }

    /// What each rule looks for and why, for hovers.
    static func explanation(_ category: String) -> String {
        switch category {
        case "passive": return "Passive voice hides who acts. Name the actor and let it do the verb, unless the actor truly does not matter."
        case "weasel": return "Weasel words (many, very, quite, some say) claim without committing. Give the number, the source or cut the word."
        case "adverb": return "An -ly adverb often props up a weak verb. A precise verb usually does the job alone."
        case "long_sentence": return "Long sentences make readers hold too much at once. Split at the natural joints."
        case "readability": return "A high Automated Readability Index grade: long words and long sentences. Simpler words and shorter sentences lower it."
        case "cliche": return "A phrase worn smooth by use; readers skim over it. Say the specific thing instead."
        case "ai_cliche": return "A phrase that reads as machine-written filler. Replace it with what you actually mean."
        case "generic_opening": return "An opening readers have seen a thousand times. Start with the point, a scene or a fact."
        case "repeated_word": return "The same word twice in a row, usually a slip."
        case "there_is": return "“There is/are” delays the subject. Lead with the real subject and verb."
        case "so_start": return "“So” at the start of a sentence is a verbal tic in writing."
        case "wordy": return "A long way to say something short. The shorter form loses nothing."
        case "hedge": return "Hedges (I think, perhaps, it seems) soften claims until they say little. Commit, or say why you are unsure."
        case "spelling": return "A word not in the dictionary. Fix it, or add it to the project dictionary if it is a name or a term."
        default: return "A quick heuristic of tk-agent (no LLM involved)."
        }
    }

    // MARK: Commands

    func executeCommand(_ params: JSONValue) async throws -> JSONValue {
        guard let name = params["command"]?.stringValue else {
            throw Self.fail(JSONRPCError.invalidParams, "workspace/executeCommand needs a command")
        }
        guard let command = LSPCommand(rawValue: name) else {
            throw Self.fail(JSONRPCError.invalidParams, "unknown command \(name); tk-agent knows \(LSPCommand.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let args = params["arguments"]?.arrayValue ?? []
        guard let uri = args.first?.stringValue else {
            throw Self.fail(JSONRPCError.invalidParams, "\(name) needs the document URI as its first argument")
        }
        let loc = try location(uri)
        do {
            switch command {
            case .accept, .skip:
                guard args.count > 1, let id = args[1].stringValue else {
                    throw Self.fail(JSONRPCError.invalidParams, "\(name) needs [uri, suggestion id]")
                }
                let status: SuggestionStatus = command == .accept ? .accepted : .skipped
                let r = try actions.decide(loc, id: id, status: status)
                refreshSidecar(uri)
                if let ready = r.readyMessage { showMessage(ready, type: 3) }
                return ["id": .string(id), "status": .string(r.suggestion.status.rawValue),
                        "previous_status": .string(r.previousStatus.rawValue)]
            case .journeySet:
                let o = args.count > 1 ? args[1] : .null
                func list(_ v: JSONValue?) -> [String]? {
                    if let s = v?.stringValue { return s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                    return v?.arrayValue?.compactMap(\.stringValue)
                }
                let stage = o["stage"]?.stringValue
                let storyType = (o["story_type"] ?? o["storyType"])?.stringValue
                let advisors = list(o["advisors"])
                let draftStage = (o["draft_stage"] ?? o["draftStage"])?.stringValue
                guard stage != nil || storyType != nil || advisors != nil || draftStage != nil else {
                    throw Self.fail(JSONRPCError.invalidParams, "tk.journeySet needs [uri, {stage, story_type, advisors, draft_stage}]")
                }
                let s = try actions.journeySet(loc, stage: stage, storyType: storyType, advisors: advisors, draftStage: draftStage)
                documents[uri]?.loadSidecar(actions: actions)
                republishAll()
                return ["stage": .string(s.journey.stage.rawValue), "story_type": s.journey.storyType.map { .string($0) } ?? .null,
                        "advisors": .array(s.journey.advisors.map { .string($0) }),
                        "draft_stage": s.journey.draftStage.map { .string($0.rawValue) } ?? .null]
            case .review:
                let q = try actions.queueReview(loc)
                if q.agentRuns {
                    showMessage("Review round \(q.round) queued; the agent runs it now.", type: 3)
                } else {
                    showMessage("Review round \(q.round) started (no agent running: tk-agent lsp runs it).", type: 3)
                    let actions = self.actions
                    Task { [weak self] in
                        let (status, reason) = await actions.runHere(round: q.round)
                        if status != .done {
                            await self?.showMessage("Review round \(q.round) \(status.rawValue): \(reason ?? "no reason given")", type: 2)
                        }
                        await self?.pollSidecars()
                    }
                }
                return ["round": .string(q.round), "agent": .bool(q.agentRuns)]
            case .addToDictionary:
                guard args.count > 1, let word = args[1].stringValue else {
                    throw Self.fail(JSONRPCError.invalidParams, "tk.addToDictionary needs [uri, word]")
                }
                try actions.addToDictionary(project: loc.project, word: word)
                republishAll()
                return ["word": .string(word), "dictionary": .string(loc.project.appending(".tk/dictionary.txt").display)]
            }
        } catch let f as JSONRPCFailure {
            throw f
        } catch {
            throw Self.fail(JSONRPCError.internalError, "\(name): \(error)")
        }
    }

    /// Lints and publishes every open document now, afresh: after a change to what findings
    /// depend on beyond the buffer (the project dictionary, the journey, the configuration).
    func republishAll() {
        for u in documents.keys {
            if let root = documents[u]?.project {
                ProjectWords.invalidate(project: root)
                actions.forgetProjectInputs(root)
            }
            documents[u]?.linter = LSPLinter()
            documents[u]?.config = nil
            guard documents[u] != nil else { continue }
            _ = documents[u]!.relint(actions: actions, settings: settings, encoding: encoding)
            if clientPulls {
                if clientRefreshes { sendRequest("workspace/diagnostic/refresh", .null) }
            } else {
                publish(u)
            }
            scheduleVale(u)
        }
    }

    /// The document a command names: it must be a file on disk in a project.
    func location(_ uri: String) throws -> DocumentLocation {
        if let loc = documents[uri]?.location { return loc }
        guard let path = Self.path(fromURI: uri) else {
            throw Self.fail(JSONRPCError.invalidParams, "\(uri) is not a file: URI")
        }
        guard let loc = actions.locate(file: path) else {
            throw Self.fail(JSONRPCError.invalidParams, "\(path.display) is not a saved markdown document; save it first")
        }
        documents[uri]?.location = loc
        return loc
    }

    /// Re-reads a document's sidecar now and republishes.
    func refreshSidecar(_ uri: String) {
        guard documents[uri] != nil else { return }
        documents[uri]!.loadSidecar(actions: actions)
        lintNow(uri)
    }
}
