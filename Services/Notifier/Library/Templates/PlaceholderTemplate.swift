/// A message text with `{name}` placeholders, parsed once so a misspelt placeholder is
/// reported when the catalog loads, not when the first event arrives.
public struct PlaceholderTemplate: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    let pieces: [Piece]
    public let source: String

    /// Parses `text`; `{{` and `}}` stand for literal braces.
    public init(_ text: String, allowed: Set<String>) throws(CatalogError) {
        var pieces: [Piece] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "{" {
                if next < text.endIndex && text[next] == "{" {
                    literal.append("{")
                    index = text.index(after: next)
                    continue
                }
                guard let close = text[next...].firstIndex(of: "}") else {
                    throw CatalogError("unclosed '{' in template \"\(text)\"")
                }
                let name = String(text[next..<close])
                guard allowed.contains(name) else {
                    throw CatalogError("unknown placeholder {\(name)} in template \"\(text)\" (allowed: \(allowed.sorted().joined(separator: ", ")))")
                }
                if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
                pieces.append(.placeholder(name))
                index = text.index(after: close)
            } else if character == "}" {
                guard next < text.endIndex && text[next] == "}" else {
                    throw CatalogError("unmatched '}' in template \"\(text)\"")
                }
                literal.append("}")
                index = text.index(after: next)
            } else {
                literal.append(character)
                index = next
            }
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
        self.source = text
    }

    /// Fills the placeholders; a value the event lacks renders as "?" rather than failing delivery.
    public func render(_ values: [String: String]) -> String {
        var output = ""
        for piece in pieces {
            switch piece {
            case .text(let text): output += text
            case .placeholder(let name): output += values[name] ?? "?"
            }
        }
        return output
    }
}

/// A catalog or template that cannot be used; the notifier exits 78 with this message.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
