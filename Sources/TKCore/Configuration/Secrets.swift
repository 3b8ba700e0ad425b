import Foundation

/// API keys kept out of the config file: `<config>/tk/secrets.json` (0600), a flat object of
/// dotted keys (`"providers.anthropic.api_key": "…"`, or `"api_key"` for any provider), or the
/// Secret Service through `secret-tool` when it is available.
/// STUB: the writing work (`config set`) fills this in; the signatures stay.
public struct SecretsStore: Sendable {
    public let paths: Paths
    public init(paths: Paths) { self.paths = paths }

    /// The stored secret for a dotted key, or nil. Never logs the value.
    public func value(for key: String) -> String? { nil }
}
