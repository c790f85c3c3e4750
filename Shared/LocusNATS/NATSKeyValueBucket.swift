import CNATS
import Foundation

/// A replicated JetStream key-value bucket, for state that must follow a service to another
/// host (docs/nats.md, "Geofence state"). Writes are JetStream publishes to
/// `$KV.<bucket>.<key>` through the connection's ordered, confirmed publisher, so a batch of
/// writes costs one wait (`confirm`), and a re-sent write never lands behind a newer one.
public final class NATSKeyValueBucket: @unchecked Sendable {
    public let name: String
    private let connection: NATSConnection
    private var stream: String { "KV_\(name)" }

    /// Opens the bucket, creating it (one value per key; `replicas` copies, by default as
    /// for the streams) when it is missing.
    public init(connection: NATSConnection, name: String, replicas: Int? = nil) throws(NATSError) {
        self.connection = connection
        self.name = name
        var store: OpaquePointer?
        var status = js_KeyValue(&store, connection.jetStream, name)
        if status == NATS_NOT_FOUND {
            var config = kvConfig()
            kvConfig_Init(&config)
            status = name.withCString { bucket in
                config.Bucket = bucket
                config.History = 1
                config.StorageType = js_FileStorage
                config.Replicas = Int32(replicas ?? connection.defaultReplicas)
                return js_CreateKeyValue(&store, connection.jetStream, &config)
            }
        }
        kvStore_Destroy(store)
        try check(status, "cannot open key-value bucket \(name)")
    }

    /// One key token from any text: letters, digits, `-` and `_` stay, every other byte is
    /// `=XX` (keys allow only `[-/_=.A-Za-z0-9]`, and `.` separates tokens).
    public static func token(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return out.isEmpty ? "=" : String(decoding: out, as: UTF8.self)
    }

    /// The text a `token` was made from (nil for a token that is not one).
    public static func text(ofToken token: String) -> String? {
        if token == "=" { return "" }
        var out: [UInt8] = []
        var bytes = token.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "=") else { out.append(byte); continue }
            guard let high = bytes.next(), let low = bytes.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            out.append(value)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Writes `value` under `key` (sent now, stored once `confirm` says so).
    public func put(_ key: String, _ value: [UInt8]) throws(NATSError) {
        try send(key, value, operation: nil)
    }

    public func delete(_ key: String) throws(NATSError) {
        try send(key, [], operation: "DEL")
    }

    private func send(_ key: String, _ value: [UInt8], operation: String?) throws(NATSError) {
        var message: OpaquePointer?
        let created = value.withUnsafeBytes {
            natsMsg_Create(&message, "$KV.\(name).\(key)", nil, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
        }
        try check(created, "cannot build a key-value write")
        guard let message else { throw NATSError("cannot build a key-value write") }
        if let operation { natsMsgHeader_Set(message, "KV-Operation", operation) }
        connection.durable.publish(message, stream: stream)
    }

    /// Waits until every write so far is stored (see `NATSConnection.confirmPublishes`).
    public func confirm(timeoutSeconds: Double) -> Bool {
        connection.confirmPublishes(timeoutSeconds: timeoutSeconds)
    }

    /// The current value of every key matching `filter` (a key pattern: `d.>`, `r.p0.>`).
    public func entries(matching filter: String) throws(NATSError) -> [(key: String, value: [UInt8])] {
        let prefix = "$KV.\(name)."
        var found: [(key: String, value: [UInt8])] = []
        try NATSLastValues.read(connection: connection, stream: stream, filter: prefix + filter) { message in
            var operation: UnsafePointer<CChar>?
            if natsMsgHeader_Get(message, "KV-Operation", &operation) == NATS_OK { return }  // deleted or purged
            let subject = String(cString: natsMsg_GetSubject(message))
            guard subject.hasPrefix(prefix) else { return }
            let length = Int(natsMsg_GetDataLength(message))
            let bytes = natsMsg_GetData(message).map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            found.append((String(subject.dropFirst(prefix.count)), bytes))
        }
        return found
    }
}
