/// The standard sentences the decoder reads; everything else is counted and skipped.
public enum NMEASentenceKind: String, Sendable, CaseIterable {
    case gga = "GGA", rmc = "RMC", gsa = "GSA", gsv = "GSV", gst = "GST"
    case gbs = "GBS", vtg = "VTG", gll = "GLL", gns = "GNS", zda = "ZDA"

    /// One bit per kind, for remembering which kinds an epoch contained.
    var bit: UInt16 {
        switch self {
        case .gga: 1 << 0
        case .rmc: 1 << 1
        case .gsa: 1 << 2
        case .gsv: 1 << 3
        case .gst: 1 << 4
        case .gbs: 1 << 5
        case .vtg: 1 << 6
        case .gll: 1 << 7
        case .gns: 1 << 8
        case .zda: 1 << 9
        }
    }

    /// Looks a kind up from the three formatter letters without building a String.
    static func from(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> NMEASentenceKind? {
        switch (a, b, c) {
        case (0x47, 0x47, 0x41): .gga  // GGA
        case (0x52, 0x4D, 0x43): .rmc  // RMC
        case (0x47, 0x53, 0x41): .gsa  // GSA
        case (0x47, 0x53, 0x56): .gsv  // GSV
        case (0x47, 0x53, 0x54): .gst  // GST
        case (0x47, 0x42, 0x53): .gbs  // GBS
        case (0x56, 0x54, 0x47): .vtg  // VTG
        case (0x47, 0x4C, 0x4C): .gll  // GLL
        case (0x47, 0x4E, 0x53): .gns  // GNS
        case (0x5A, 0x44, 0x41): .zda  // ZDA
        default: nil
        }
    }
}
