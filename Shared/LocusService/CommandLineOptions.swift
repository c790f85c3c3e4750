public import Foundation

/// One option a program accepts. Its value may come from a config file (key = the
/// long name without dashes), an environment variable, or the command line, in
/// increasing order of precedence (docs/protocol.md, "Programs").
public struct OptionSpec: Sendable {
    public var name: String
    /// Placeholder shown in help, e.g. `FILE`; nil for a boolean flag.
    public var valueName: String?
    public var help: String
    public var environment: String?
    public var defaultValue: String?
    /// May be given several times (e.g. `--sink`); values accumulate.
    public var repeatable: Bool

    public init(_ name: String, value: String? = nil, help: String, environment: String? = nil,
                default defaultValue: String? = nil, repeatable: Bool = false) {
        self.name = name
        self.valueName = value
        self.help = help
        self.environment = environment
        self.defaultValue = defaultValue
        self.repeatable = repeatable
    }

    var configKey: String { String(name.drop(while: { $0 == "-" })) }
}

/// A command line that could not be understood; programs exit with 64 (EX_USAGE).
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A config file that could not be read or parsed; programs exit with 78 (EX_CONFIG).
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parsed options with every source already merged.
public struct ParsedOptions: Sendable {
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []

    public init() {}

    public func string(_ name: String) -> String? { values[name]?.last }
    public func strings(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool {
        guard let value = values[name]?.last else { return false }
        return value == "true" || value == "1" || value == "yes"
    }

    public func double(_ name: String) throws(UsageError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw UsageError("\(name) expects a number, got '\(text)'")
        }
        return value
    }

    public func int(_ name: String) throws(UsageError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw UsageError("\(name) expects a whole number, got '\(text)'") }
        return value
    }
}

/// The command-line grammar of one program: `--name value`, `--name=value`, flags, positionals.
public struct CommandLineSpec: Sendable {
    public var program: String
    public var summary: String
    public var usage: String
    public var options: [OptionSpec]
    public var footer: String

    public init(program: String, summary: String, usage: String, options: [OptionSpec], footer: String = "") {
        self.program = program
        self.summary = summary
        self.usage = usage
        self.options = options
        self.footer = footer
    }

    public var helpText: String {
        var lines = ["\(program) — \(summary)", "", "Usage: \(usage)", "", "Options:"]
        let width = options.map { optionLabel($0).count }.max() ?? 0
        for option in options {
            let label = optionLabel(option)
            var text = "  " + label + String(repeating: " ", count: width - label.count + 2) + option.help
            if let environment = option.environment { text += " [env \(environment)]" }
            if let value = option.defaultValue { text += " (default: \(value))" }
            lines.append(text)
        }
        if !footer.isEmpty { lines += ["", footer] }
        return lines.joined(separator: "\n") + "\n"
    }

    private func optionLabel(_ option: OptionSpec) -> String {
        option.valueName.map { "\(option.name) \($0)" } ?? option.name
    }

    /// Merges defaults < config file < environment < command line.
    public func parse(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                      config: [String: Any]? = nil) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for option in options {
            if let value = option.defaultValue { parsed.values[option.name] = [value] }
        }
        if let config {
            for (key, value) in config.sorted(by: { $0.key < $1.key }) {
                // A misspelt key would otherwise be ignored silently and the default used instead.
                guard let option = byName["--" + key], key != "config", key != "help", key != "version" else {
                    throw UsageError("config key '\(key)' is not an option of \(program) (see --help)")
                }
                parsed.values[option.name] = try configValues(value, key: key)
            }
        }
        for option in options {
            if let variable = option.environment, let value = environment[variable], !value.isEmpty {
                parsed.values[option.name] = [value]
            }
        }
        var commandLine: [String: [String]] = [:]
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if !onlyPositionals, argument.hasPrefix("-"), argument != "-" {
                    throw UsageError("unknown option '\(argument)' (see --help)")
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else { throw UsageError("unknown option '\(name)' (see --help)") }
            let value: String
            if option.valueName == nil {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                value = "true"
            } else if let inline {
                value = inline
            } else {
                guard index < arguments.count else { throw UsageError("\(name) needs a value (\(option.valueName!))") }
                value = arguments[index]
                index += 1
            }
            if option.repeatable { commandLine[name, default: []].append(value) } else { commandLine[name] = [value] }
        }
        for (name, values) in commandLine { parsed.values[name] = values }
        return parsed
    }

    private func configValues(_ value: Any, key: String) throws(UsageError) -> [String] {
        switch value {
        case let text as String: return [text]
        case let flag as Bool where type(of: value) == type(of: NSNumber(value: true)):
            return [flag ? "true" : "false"]
        case let number as NSNumber:
            return [number.stringValue]
        case let list as [Any]:
            var out: [String] = []
            for item in list { out += try configValues(item, key: key) }
            return out
        default:
            throw UsageError("config key '\(key)' has a value of an unsupported type")
        }
    }

    /// Reads a JSON config file: an object whose keys are option names without dashes.
    public static func loadConfig(path: String) throws(ConfigError) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError("cannot read config file '\(path)'")
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigError("config file '\(path)' is not valid JSON: \(error.localizedDescription)")
        }
        guard let dictionary = object as? [String: Any] else {
            throw ConfigError("config file '\(path)' must hold a JSON object")
        }
        return dictionary
    }
}
