import Foundation

/// Why a role or story type could not be found, created or deleted. Each description is one actionable line.
public enum AdvisorError: Error, CustomStringConvertible, Equatable, Sendable {
    case unknownRole(id: String, valid: [String])
    case unknownStoryType(id: String, valid: [String])
    case invalidRole(String)
    case roleExists(id: String)
    case builtInRole(id: String)
    case roleNotFound(id: String)
    case io(String)

    public var description: String {
        switch self {
        case .unknownRole(let id, let valid):
            "unknown advisor \"\(id)\"; valid advisors: \(valid.joined(separator: ", "))"
        case .unknownStoryType(let id, let valid):
            "unknown story type \"\(id)\"; valid story types: \(valid.joined(separator: ", "))"
        case .invalidRole(let why):
            "invalid role: \(why)"
        case .roleExists(let id):
            "a custom role \"\(id)\" already exists (use --force to replace it, or choose another name)"
        case .builtInRole(let id):
            "\"\(id)\" is a built-in role and cannot be changed or deleted"
        case .roleNotFound(let id):
            "no custom role \"\(id)\" (see `tk-agent roles list`)"
        case .io(let why):
            why
        }
    }
}
