/// The range checks both phone protocols apply to a field once it is read as a number, so a
/// refusal always names the field and the rule: not finite or out of range is refused;
/// a negative speed, course or battery is how phones say "unknown" and becomes absent.
enum PhoneFields {
    static func latitude(_ value: Double, field: String) throws(PhoneRefusal) -> Double {
        try finite(value, field)
        guard abs(value) <= 90 else { throw PhoneRefusal(.outOfRange, "\(field) \(value) is outside −90…90") }
        return value
    }

    static func longitude(_ value: Double, field: String) throws(PhoneRefusal) -> Double {
        try finite(value, field)
        guard abs(value) <= 180 else { throw PhoneRefusal(.outOfRange, "\(field) \(value) is outside −180…180") }
        return value
    }

    /// An accuracy in metres: absent or 0 means unknown; negative or beyond 1 000 km is refused.
    static func accuracy(_ value: Double?, field: String) throws(PhoneRefusal) -> Double? {
        guard let value else { return nil }
        try finite(value, field)
        guard value >= 0, value <= 1_000_000 else { throw PhoneRefusal(.outOfRange, "\(field) \(value) m is outside 0…1 000 000") }
        return value > 0 ? value : nil
    }

    static func altitude(_ value: Double?, field: String) throws(PhoneRefusal) -> Double? {
        guard let value else { return nil }
        try finite(value, field)
        guard abs(value) <= 100_000 else { throw PhoneRefusal(.outOfRange, "\(field) \(value) m is outside −100 000…100 000") }
        return value
    }

    /// A speed already in m/s; above 2 000 m/s no phone moves.
    static func speed(_ value: Double?, field: String) throws(PhoneRefusal) -> Double? {
        guard let value else { return nil }
        try finite(value, field)
        guard value <= 2_000 else { throw PhoneRefusal(.outOfRange, "\(field) gives \(value) m/s, above 2 000") }
        return value >= 0 ? value : nil
    }

    /// Degrees true; 360 is north again.
    static func course(_ value: Double?, field: String) throws(PhoneRefusal) -> Double? {
        guard let value else { return nil }
        try finite(value, field)
        guard value <= 360 else { throw PhoneRefusal(.outOfRange, "\(field) \(value)° is above 360") }
        return value >= 0 ? value.truncatingRemainder(dividingBy: 360) : nil
    }

    static func battery(_ value: Double?, field: String) throws(PhoneRefusal) -> Int? {
        guard let value else { return nil }
        try finite(value, field)
        guard value <= 100 else { throw PhoneRefusal(.outOfRange, "\(field) \(value) % is above 100") }
        return value >= 0 ? Int(value.rounded()) : nil
    }

    /// A fix time in Unix seconds: after 2000-01-01 and at most a day ahead of `now`.
    static func time(_ value: Double, field: String, now: Double) throws(PhoneRefusal) -> Double {
        try finite(value, field)
        guard value >= 946_684_800 else { throw PhoneRefusal(.badTime, "\(field) \(value) is before 2000") }
        guard value <= now + 86_400 else {
            let ahead = value - now
            // Whole seconds when they fit (a clock a day off), otherwise the number as it is.
            let text = ahead < 1e15 ? String(Int64(ahead)) : String(ahead)
            throw PhoneRefusal(.badTime, "\(field) \(value) is \(text) s ahead of this machine's clock")
        }
        return value
    }

    static func finite(_ value: Double, _ field: String) throws(PhoneRefusal) {
        guard value.isFinite else { throw PhoneRefusal(.outOfRange, "\(field) is not a finite number") }
    }
}
