public import Foundation

/// The last fused location of each device, one small JSON file per device in a state
/// directory, so a restarted fusion service can republish where every device was (Core
/// Location's cached `location`) before any new fix arrives. Each write goes to a temporary
/// file that is then renamed over the old one: a crash leaves the old or the new file, never half of one.
public struct LastKnownStore: Sendable {
    /// What is kept per device.
    public struct Entry: Codable, Sendable, Equatable {
        public var device: String
        public var lat: Double
        public var lon: Double
        public var hacc: Double
        /// Fix time, seconds since the Unix epoch.
        public var t: Double
        public var alt: Double?

        public init(device: String, lat: Double, lon: Double, hacc: Double, t: Double, alt: Double? = nil) {
            self.device = device
            self.lat = lat
            self.lon = lon
            self.hacc = hacc
            self.t = t
            self.alt = alt
        }
    }

    public let directory: URL

    /// Creates the directory (mode 0700) when it is missing.
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    public func save(_ entry: Entry) throws {
        let data = try JSONEncoder().encode(entry)
        let target = fileURL(for: entry.device)
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "rename failed: \(String(cString: strerror(code)))"])
        }
    }

    /// Every readable entry; damaged files are skipped (and named in `damaged`).
    public func loadAll() -> (entries: [Entry], damaged: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var entries: [Entry] = []
        var damaged: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            if let data = try? Data(contentsOf: url), let entry = try? JSONDecoder().decode(Entry.self, from: data),
               entry.lat.isFinite, entry.lon.isFinite, abs(entry.lat) <= 90, abs(entry.lon) <= 180,
               entry.hacc.isFinite, entry.hacc > 0, entry.t.isFinite {
                entries.append(entry)
            } else {
                damaged.append(name)
            }
        }
        return (entries, damaged)
    }

    /// A file name that cannot escape the directory: letters, digits, `-` and `_` are kept,
    /// every other byte is written as `%XX`.
    public func fileURL(for device: String) -> URL {
        var name = ""
        for byte in device.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += String(format: "%%%02X", byte)
            }
        }
        return directory.appendingPathComponent(name + ".json")
    }
}
