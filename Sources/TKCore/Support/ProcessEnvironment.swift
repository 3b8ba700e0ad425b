import Foundation

/// The process's environment, read once.
///
/// `ProcessInfo.processInfo.environment` builds a new dictionary from `environ` at every call, and
/// the resolvers a command sets up each asked for it as a default argument: 13 times in a `check`
/// (5.4M instructions, a millisecond). Nothing in tk-agent changes its own environment (no
/// `setenv`), so one snapshot is what every call would have read.
public enum ProcessEnvironment {
    public static let current: [String: String] = ProcessInfo.processInfo.environment
}
