/// The range, identifier and word checks every message goes through, whether it was
/// decoded or is about to be sent. Errors name the message type and the field path,
/// e.g. `location.lat: 95 is out of range [-90, 90]`.
struct Checker {
    /// The message type the field belongs to, or "envelope".
    let type: String

    func failure(_ code: ProtocolError.Code, _ field: String, _ text: String) -> ProtocolError {
        ProtocolError(code: code, field: field, message: "\(type).\(field): \(text)")
    }

    static func show(_ number: Double) -> String {
        number.isFinite ? JSONWriter.numberText(number) : "\(number)"
    }

    func finite(_ number: Double, _ field: String) throws(ProtocolError) {
        guard number.isFinite else { throw failure(.notFinite, field, "\(number) is not a finite number") }
    }

    /// Checks `lower ≤ number ≤ upper` (or `< upper` when `upperOpen`).
    func range(_ number: Double, _ field: String, _ lower: Double, _ upper: Double, upperOpen: Bool = false) throws(ProtocolError) {
        try finite(number, field)
        let aboveUpper = upperOpen ? number >= upper : number > upper
        guard number >= lower, !aboveUpper else {
            let close = upperOpen ? ")" : "]"
            throw failure(.outOfRange, field, "\(Checker.show(number)) is out of range [\(Checker.show(lower)), \(Checker.show(upper))\(close)")
        }
    }

    func latitude(_ number: Double, _ field: String) throws(ProtocolError) {
        try range(number, field, -90, 90)
    }

    func longitude(_ number: Double, _ field: String) throws(ProtocolError) {
        try range(number, field, -180, 180)
    }

    /// Checks `number > 0` and finite (accuracies, radii).
    func positive(_ number: Double, _ field: String) throws(ProtocolError) {
        try finite(number, field)
        guard number > 0 else { throw failure(.outOfRange, field, "\(Checker.show(number)) must be greater than 0") }
    }

    /// Checks `number ≥ 0` and finite (times, speeds, durations).
    func nonNegative(_ number: Double, _ field: String) throws(ProtocolError) {
        try finite(number, field)
        guard number >= 0 else { throw failure(.outOfRange, field, "\(Checker.show(number)) must not be negative") }
    }

    func nonNegative(_ integer: Int, _ field: String) throws(ProtocolError) {
        guard integer >= 0 else { throw failure(.outOfRange, field, "\(integer) must not be negative") }
    }

    /// Checks an identifier used in topics (device, owner, client, sink, service).
    func identifier(_ text: String, _ field: String) throws(ProtocolError) {
        guard Topic.isValidID(text) else {
            throw failure(.invalidValue, field, "\(quoted(text)) is not a valid id (non-empty, at most \(Topic.maximumIDBytes) bytes, no spaces or control characters)")
        }
    }

    func nonEmpty(_ text: String, _ field: String) throws(ProtocolError) {
        guard !text.isEmpty else { throw failure(.invalidValue, field, "must not be empty") }
    }

    /// Checks a word from a closed set kept as a String in the model (mode, tier, level).
    func word(_ text: String, _ field: String, in words: Set<String>) throws(ProtocolError) {
        guard words.contains(text) else {
            throw failure(.invalidValue, field, "\(quoted(text)) is not one of \(words.sorted().joined(separator: ", "))")
        }
    }

    func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(57)) + "…" : text
        return "\"\(shown)\""
    }
}
