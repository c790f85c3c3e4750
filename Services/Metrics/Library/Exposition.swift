/// Prometheus's text exposition format (version 0.0.4): metric families, each with one
/// `# HELP` and one `# TYPE` line and its samples together, names and label values escaped,
/// families and samples sorted so two renderings of the same state are byte for byte equal.
public struct Exposition: Sendable {
    public enum MetricType: String, Sendable {
        case counter, gauge
    }

    public struct Sample: Sendable, Equatable {
        public var labels: [(String, String)]
        public var value: Double

        public static func == (a: Sample, b: Sample) -> Bool {
            a.value == b.value && a.labels.elementsEqual(b.labels, by: { $0 == $1 })
        }
    }

    struct Family {
        var type: MetricType
        var help: String
        var samples: [String: Sample] = [:]
    }

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    private var families: [String: Family] = [:]

    public init() {}

    /// Adds (or replaces) the sample of `name` with these labels. A family keeps the type and
    /// help it was first given; a sample whose type disagrees is left out rather than
    /// producing an exposition Prometheus would reject.
    public mutating func add(_ name: String, _ type: MetricType, help: String, labels: [(String, String)] = [], value: Double) {
        let name = Self.isClean(name, allowColon: true) ? name : Self.metricName(name)
        if families[name] == nil { families[name] = Family(type: type, help: help) }
        guard families[name]!.type == type else { return }
        var labels = labels
        for index in labels.indices where !Self.isClean(labels[index].0, allowColon: false) {
            labels[index].0 = Self.labelName(labels[index].0)
        }
        if labels.count > 1 { labels.sort { $0.0 < $1.0 } }
        families[name]!.samples[Self.labelText(labels)] = Sample(labels: labels, value: value)
    }

    public var familyNames: [String] { families.keys.sorted() }

    /// The value of one sample, for tests and the exporter's own checks.
    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double? {
        let sorted = labels.sorted { $0.0 < $1.0 }
        return families[name]?.samples[Self.labelText(sorted)]?.value
    }

    /// The whole exposition, ending with a newline.
    public var text: String {
        var output: [UInt8] = []
        output.reserveCapacity(families.values.reduce(0) { $0 + $1.samples.count } * 64)
        for name in families.keys.sorted() {
            guard let family = families[name] else { continue }
            output += "# HELP \(name) \(Self.escapeHelp(family.help))\n# TYPE \(name) \(family.type.rawValue)\n".utf8
            for (key, sample) in family.samples.sorted(by: { $0.key < $1.key }) {
                output += name.utf8
                output += key.utf8
                output.append(UInt8(ascii: " "))
                output += Self.valueText(sample.value).utf8
                output.append(UInt8(ascii: "\n"))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: text rules

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`: anything else becomes `_`.
    static func metricName(_ text: String) -> String {
        sanitize(text, allowColon: true)
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`.
    static func labelName(_ text: String) -> String {
        sanitize(text, allowColon: false)
    }

    /// True when `text` is already a valid name (the common case: no copy is made).
    static func isClean(_ text: String, allowColon: Bool) -> Bool {
        var first = true
        for byte in text.utf8 {
            let letter = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || (allowColon && byte == 0x3A)
            guard letter || (!first && byte >= 0x30 && byte <= 0x39) else { return false }
            first = false
        }
        return !first
    }

    private static func sanitize(_ text: String, allowColon: Bool) -> String {
        var result = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || (allowColon && scalar == ":")
            let isDigit = ("0"..."9").contains(scalar)
            result.unicodeScalars.append(isLetter || (isDigit && index > 0) ? scalar : "_")
        }
        return result.isEmpty ? "_" : result
    }

    static func labelText(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    static func escapeLabelValue(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return text }
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func valueText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
