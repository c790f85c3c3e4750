/// The radio technology of a cell, with OpenCellID's words and a compact code for storage.
public enum CellRadio: Int, Sendable, CaseIterable, Comparable {
    case gsm = 0, umts = 1, lte = 2, nr = 3, cdma = 4

    /// OpenCellID's word for it (`GSM`, `UMTS`, `LTE`, `NR`, `CDMA`).
    public var word: String { ["GSM", "UMTS", "LTE", "NR", "CDMA"][rawValue] }

    public init?(word: some StringProtocol) {
        guard let found = CellRadio.allCases.first(where: { $0.word.utf8.elementsEqual(word.utf8) }) else { return nil }
        self = found
    }

    public static func < (a: CellRadio, b: CellRadio) -> Bool { a.rawValue < b.rawValue }
}

/// A cell's global identity as the database keys it.
public struct CellIdentity: Hashable, Sendable, CustomStringConvertible {
    public var radio: CellRadio
    public var mcc: Int
    public var mnc: Int
    /// LAC (GSM, UMTS), TAC (LTE, NR) or NID (CDMA).
    public var area: Int
    /// Cell id: CID, UTRAN cell id (RNC·65536 + CID), E-UTRAN/NR cell identity, or BID.
    public var cell: Int64

    public init(radio: CellRadio, mcc: Int, mnc: Int, area: Int, cell: Int64) {
        self.radio = radio
        self.mcc = mcc
        self.mnc = mnc
        self.area = area
        self.cell = cell
    }

    public var description: String { "\(radio.word) \(mcc)-\(mnc)-\(area)-\(cell)" }
}

/// The serving cell as ModemManager reports it. mmcli does not say which radio is in
/// use, so the candidates are inferred: a tracking area code means LTE (or NR), a location
/// area code GSM or UMTS (UMTS when the cell id needs more than 16 bits).
public struct CellObservation: Sendable, Equatable {
    public var mcc: Int
    public var mnc: Int
    public var lac: Int?
    public var tac: Int?
    public var cell: Int64

    public init(mcc: Int, mnc: Int, lac: Int?, tac: Int?, cell: Int64) {
        self.mcc = mcc
        self.mnc = mnc
        self.lac = lac
        self.tac = tac
        self.cell = cell
    }

    /// The identities this observation may be, most likely first.
    public var candidates: [CellIdentity] {
        var out: [CellIdentity] = []
        if let tac, tac > 0 {
            out.append(CellIdentity(radio: .lte, mcc: mcc, mnc: mnc, area: tac, cell: cell))
            out.append(CellIdentity(radio: .nr, mcc: mcc, mnc: mnc, area: tac, cell: cell))
        }
        if let lac, lac > 0 {
            let radios: [CellRadio] = cell > 0xFFFF ? [.umts, .gsm] : [.gsm, .umts]
            out += radios.map { CellIdentity(radio: $0, mcc: mcc, mnc: mnc, area: lac, cell: cell) }
        }
        return out
    }
}
