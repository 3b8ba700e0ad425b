extension CheckSession {
    /// Starts loading, on another thread, the Hunspell dictionary that checking `target` (a file or
    /// folder, absolute) will most likely need: the language of its project's configuration, when
    /// spelling is on there. Loading en_US takes ~30 ms; meanwhile this thread reads, parses and checks.
    /// A document whose front matter names another language loads that one when it gets there.
    public mutating func preloadSpelling(for target: PathBytes) {
        let project = FileSystem.lstatIfExists(target)?.kind == .directory
            ? Self.projectRoot(startingAt: target) : Self.projectRoot(forFile: target)
        let h = configuration(project: project).config.heuristics
        guard h.spelling, !h.disabled.contains("spelling"), case .success(let speller) = Speller.named(h.lang) else {
            return
        }
        speller.preload()
    }
}

extension HeuristicsEngine {
    /// Loads the dictionary `doc` needs now, when spelling is on (e.g. to time checking without the load).
    public func loadSpeller(for doc: MarkdownDocument) {
        guard spellingEnabled, case .success(let speller) = speller(for: doc) else { return }
        speller.load()
    }
}
