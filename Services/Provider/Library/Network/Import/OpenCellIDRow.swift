/// One row of a cell export in OpenCellID's CSV layout:
/// `radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal`.
/// Parsed straight from the line's bytes (a country file has millions of rows); the
/// columns after `samples` are optional and only `updated` is kept.
public struct OpenCellIDRow: Sendable, Equatable {
    public var identity: CellIdentity
    public var lat: Double
    public var lon: Double
    /// Metres; 0 when the export does not know it.
    public var range: Double
    public var samples: Int
    /// Unix time of the export's last update of the row, when given.
    public var updated: Double?

    /// The header line of the layout, which an import skips.
    public static let header = "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal"

    /// Parses one line (without its line end). Errors name the column and quote the value.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(OpenCellIDRowError) -> OpenCellIDRow {
        var fields = CSVFields(line)
        guard let radioField = fields.next() else { throw OpenCellIDRowError("empty line") }
        guard let radio = CellRadio(word: String(decoding: radioField, as: UTF8.self).uppercased()) else {
            throw OpenCellIDRowError("radio '\(quote(radioField))' is not GSM, UMTS, LTE, NR or CDMA")
        }
        let mcc = try integer(fields.next(), "mcc", 1...999)
        let mnc = try integer(fields.next(), "net", 0...32_767)
        let area = try integer(fields.next(), "area", 0...0xFFF_FFFF)
        let cell = try integer(fields.next(), "cell", 0...0xF_FFFF_FFFF)
        _ = fields.next()  // unit: the PSC/PCI, not part of the identity
        let lon = try real(fields.next(), "lon", -180...180)
        let lat = try real(fields.next(), "lat", -90...90)
        let range = try real(fields.next(), "range", 0...100_000)
        let samples = try integer(fields.next(), "samples", 0...Int64(Int32.max))
        _ = fields.next()  // changeable
        _ = fields.next()  // created
        var updated: Double?
        if let field = fields.next(), !field.isEmpty, let value = CSVNumber.integer(field), value > 0 { updated = Double(value) }
        let identity = CellIdentity(radio: radio, mcc: Int(mcc), mnc: Int(mnc), area: Int(area), cell: cell)
        return OpenCellIDRow(identity: identity, lat: lat, lon: lon, range: range, samples: Int(samples), updated: updated)
    }

    /// The MCC column alone, for filtering before the whole row is read; nil when absent.
    public static func mcc(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        var fields = CSVFields(line)
        _ = fields.next()
        return fields.next().flatMap(CSVNumber.integer).map { Int(clamping: $0) }
    }

    private static func integer(_ field: UnsafeBufferPointer<UInt8>?, _ name: String, _ range: ClosedRange<Int64>) throws(OpenCellIDRowError) -> Int64 {
        guard let field else { throw OpenCellIDRowError("missing column \(name)") }
        guard let value = CSVNumber.integer(field) else { throw OpenCellIDRowError("\(name) '\(quote(field))' is not a whole number") }
        guard range.contains(value) else { throw OpenCellIDRowError("\(name) \(value) is outside \(range.lowerBound)…\(range.upperBound)") }
        return value
    }

    private static func real(_ field: UnsafeBufferPointer<UInt8>?, _ name: String, _ range: ClosedRange<Double>) throws(OpenCellIDRowError) -> Double {
        guard let field else { throw OpenCellIDRowError("missing column \(name)") }
        guard let value = CSVNumber.real(field) else { throw OpenCellIDRowError("\(name) '\(quote(field))' is not a number") }
        guard value.isFinite else { throw OpenCellIDRowError("\(name) is not finite") }
        guard range.contains(value) else { throw OpenCellIDRowError("\(name) \(value) is outside \(range.lowerBound)…\(range.upperBound)") }
        return value
    }

    static func quote(_ field: UnsafeBufferPointer<UInt8>) -> String {
        ScanText.quote(Substring(String(decoding: field.prefix(40), as: UTF8.self)), limit: 32)
    }
}

/// A row that does not fit the layout, with the reason.
public struct OpenCellIDRowError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The comma-separated fields of one line, as slices of it (a field in double quotes loses them).
struct CSVFields {
    private let line: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var done = false

    init(_ line: UnsafeBufferPointer<UInt8>) { self.line = line }

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard !done, let base = line.baseAddress else { return nil }
        var end = position
        while end < line.count, line[end] != UInt8(ascii: ",") { end += 1 }
        var start = position
        var stop = end
        if stop - start >= 2, line[start] == UInt8(ascii: "\""), line[stop - 1] == UInt8(ascii: "\"") {
            start += 1
            stop -= 1
        }
        if end >= line.count { done = true } else { position = end + 1 }
        return UnsafeBufferPointer(start: base + start, count: stop - start)
    }
}
