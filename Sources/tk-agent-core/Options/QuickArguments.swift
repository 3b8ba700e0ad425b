/// The command lines `check` and `ask` read without ArgumentParser (`Check.quickParse`,
/// `Ask.quickParse`), walked one argument at a time. A reader gives up (nil) on anything it does not
/// take, so that ArgumentParser parses it, with its messages.
struct QuickArguments {
    private let arguments: [String]
    private var index = 0

    init(_ arguments: [String]) { self.arguments = arguments }

    /// The next argument, nil after the last.
    mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        defer { index += 1 }
        return arguments[index]
    }

    /// The value of option `name` when `a`, the argument just read, is `name` (the value is the
    /// next argument, taken) or `name=VALUE`: `.some(nil)` when it has no usable value (none, or
    /// another option: ArgumentParser would say "Missing value"); nil when `a` is another option.
    mutating func value(_ a: String, _ name: String) -> String?? {
        if a == name {
            guard index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" else { return .some(nil) }
            defer { index += 1 }
            return .some(arguments[index])
        }
        if a.hasPrefix(name + "=") { return .some(String(a.dropFirst(name.count + 1))) }
        return nil
    }
}
