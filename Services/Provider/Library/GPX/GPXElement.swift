/// The GPX elements the reader acts on, recognised by local name so that any namespace
/// prefix (or none) works; everything else is `.other` and only nests.
enum GPXElement: Equatable {
    case gpx, metadata, wpt, rte, rtept, trk, trkpt, extensions
    case time, ele, speed, course, hdop, vdop, sat
    case other

    init(localName name: UnsafeBufferPointer<UInt8>) {
        switch name.count {
        case 3:
            if XMLName.equal(name, "gpx") { self = .gpx }
            else if XMLName.equal(name, "wpt") { self = .wpt }
            else if XMLName.equal(name, "rte") { self = .rte }
            else if XMLName.equal(name, "trk") { self = .trk }
            else if XMLName.equal(name, "ele") { self = .ele }
            else if XMLName.equal(name, "sat") { self = .sat }
            else { self = .other }
        case 4:
            if XMLName.equal(name, "time") { self = .time }
            else if XMLName.equal(name, "hdop") { self = .hdop }
            else if XMLName.equal(name, "vdop") { self = .vdop }
            else { self = .other }
        case 5:
            if XMLName.equal(name, "rtept") { self = .rtept }
            else if XMLName.equal(name, "trkpt") { self = .trkpt }
            else if XMLName.equal(name, "speed") { self = .speed }
            else { self = .other }
        case 6:
            self = XMLName.equal(name, "course") ? .course : .other
        case 8:
            self = XMLName.equal(name, "metadata") ? .metadata : .other
        case 10:
            self = XMLName.equal(name, "extensions") ? .extensions : .other
        default:
            self = .other
        }
    }

    /// The elements whose text the reader uses.
    var holdsValue: Bool {
        switch self {
        case .time, .ele, .speed, .course, .hdop, .vdop, .sat: true
        default: false
        }
    }

    /// The elements whose children are a point's fields.
    var isPoint: Bool { self == .wpt || self == .rtept || self == .trkpt }
}
