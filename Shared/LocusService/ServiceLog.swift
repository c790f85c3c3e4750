import Foundation

/// One line per event on stderr, prefixed with the service name, so several services
/// sharing a terminal or a journal stay readable: `locus-bus: warn: dropped 12 …`.
public struct ServiceLog: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var word: String { ["debug", "info", "warn", "error"][rawValue] }
    }

    public let name: String
    public var minimum: Level

    public init(name: String, minimum: Level = .info) {
        self.name = name
        self.minimum = minimum
    }

    public func debug(_ text: @autoclosure () -> String) { write(.debug, text()) }
    public func info(_ text: @autoclosure () -> String) { write(.info, text()) }
    public func warn(_ text: @autoclosure () -> String) { write(.warn, text()) }
    public func error(_ text: @autoclosure () -> String) { write(.error, text()) }

    public func write(_ level: Level, _ text: String) {
        guard level >= minimum else { return }
        // One write(2) per line keeps lines from different threads whole.
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        var line = "\(name): \(level.word): \(flat)\n"
        line.withUTF8 { buffer in _ = Foundation.write(2, buffer.baseAddress, buffer.count) }
    }
}
