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
        let name = Self.metricName(name)
        var family = families[name] ?? Family(type: type, help: help)
        guard family.type == type else { return }
        let labels = labels.map { (Self.labelName($0.0), $0.1) }.sorted { $0.0 < $1.0 }
        family.samples[Self.labelText(labels)] = Sample(labels: labels, value: value)
        families[name] = family
    }

    public var familyNames: [String] { families.keys.sorted() }

    /// The value of one sample, for tests and the exporter's own checks.
    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double? {
        let sorted = labels.sorted { $0.0 < $1.0 }
        return families[name]?.samples[Self.labelText(sorted)]?.value
    }

    /// The whole exposition, ending with a newline.
    public var text: String {
        var output = ""
        for name in families.keys.sorted() {
            guard let family = families[name] else { continue }
            output += "# HELP \(name) \(Self.escapeHelp(family.help))\n# TYPE \(name) \(family.type.rawValue)\n"
            for key in family.samples.keys.sorted() {
                output += "\(name)\(key) \(Self.valueText(family.samples[key]!.value))\n"
            }
        }
        return output
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
