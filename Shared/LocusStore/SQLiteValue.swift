/// One SQLite value, bound to a `?` parameter or read from a result column. The four cases
/// are SQLite's storage classes other than BLOB, which no table here stores.
public enum SQLiteValue: Equatable, Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    /// The integer, or nil for any other kind.
    public var int: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, or nil for any other kind.
    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The number as a Double: a REAL column holding a whole number comes back as INTEGER.
    public var real: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
}
