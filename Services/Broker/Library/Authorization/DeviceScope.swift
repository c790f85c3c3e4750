/// The devices an allow-list entry may see (a subscriber) or publish for (a provider):
/// `"devices": ["van-*", "truck-7"]`. An entry is one id, or a prefix followed by a single
/// trailing `*` (`*` alone is every device): subscriptions match topics by prefix, so a
/// trailing `*` is the only wildcard the bus can grant exactly.
public struct DeviceScope: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The id, or the prefix before `*`.
        public var text: String
        public var isPrefix: Bool
    }

    public private(set) var entries: [Entry]

    /// Parses the entry list; a `*` anywhere but at the end, or an empty entry, is an error.
    public init(parsing list: [String]) throws(ManifestError) {
        entries = []
        for item in list {
            let star = item.firstIndex(of: "*")
            guard !item.isEmpty, star == nil || star == item.index(before: item.endIndex) else {
                throw ManifestError("device scope entry '\(item)': an id, or a prefix ending in a single * (topics match by prefix)")
            }
            entries.append(Entry(text: star == nil ? item : String(item.dropLast()), isPrefix: star != nil))
        }
    }

    /// Whether the device is in the scope: an exact id, or an id starting with a prefix entry.
    public func covers<Bytes: Collection<UInt8>>(device: Bytes) -> Bool {
        entries.contains { entry in
            entry.isPrefix ? device.starts(with: entry.text.utf8) : device.elementsEqual(entry.text.utf8)
        }
    }

    /// What follows a device family's root (`location.fused.`) in the granted prefixes. An exact
    /// id is granted as its own prefix, so on the wire it also reaches ids that extend it
    /// (`truck-7` → `truck-70`): docs/security.md, known limits.
    public var grantSuffixes: [[UInt8]] {
        let all = entries.map { Array($0.text.utf8) }
        // A suffix covered by a shorter one adds nothing to the XPUB's match.
        return all.enumerated().filter { index, suffix in
            !all.enumerated().contains { other, shorter in
                other != index && suffix.starts(with: shorter) && (shorter.count < suffix.count || other < index)
            }
        }.map(\.element)
    }
}
