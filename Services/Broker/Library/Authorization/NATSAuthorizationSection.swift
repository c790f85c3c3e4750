/// A NATS server's `authorization { users = [...] }` section for Locus's clients, written by
/// `locus nats config` and included by every node's configuration (docs/nats.md,
/// "Authorization"). Passwords appear only as bcrypt hashes.
public enum NATSAuthorizationSection {
    public struct User: Sendable, Equatable {
        public var name: String
        public var passwordHash: String
        public var permissions: NATSPermissions

        public init(name: String, passwordHash: String, permissions: NATSPermissions) {
            self.name = name
            self.passwordHash = passwordHash
            self.permissions = permissions
        }
    }

    /// The section's text; `comment` (one line per element) goes on top.
    public static func render(_ users: [User], comment: [String]) -> String {
        var lines = comment.map { "# " + $0 }
        lines.append("authorization {")
        lines.append("    users = [")
        for user in users.sorted(by: { $0.name < $1.name }) {
            var publish = "allow: \(list(user.permissions.publish))"
            if !user.permissions.publishDenied.isEmpty { publish += ", deny: \(list(user.permissions.publishDenied))" }
            lines.append("        {user: \(quoted(user.name)), password: \(quoted(user.passwordHash)), permissions: {")
            lines.append("            publish: {\(publish)}")
            lines.append("            subscribe: {allow: \(list(user.permissions.subscribe))}")
            lines.append("        }}")
        }
        lines.append("    ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func list(_ subjects: [String]) -> String {
        "[" + subjects.map(quoted).joined(separator: ", ") + "]"
    }

    /// A double-quoted string of the NATS configuration format (names and subjects hold no
    /// quote or backslash; escaped anyway).
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
