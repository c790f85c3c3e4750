import CNATS
import Foundation

/// The cluster as `locus doctor` shows it on NATS: the servers the client knows, each of
/// Locus's streams with its leader and replicas (whether each is current, and how far
/// behind), and every durable consumer with what it has not yet delivered or seen acknowledged.
public struct NATSClusterReport: Sendable {
    public struct Replica: Sendable, Equatable {
        public var name: String
        public var current: Bool
        public var offline: Bool
        /// Operations behind the leader.
        public var lag: UInt64
    }

    public struct Stream: Sendable {
        public var name: String
        public var messages: UInt64
        public var bytes: UInt64
        public var replicas: Int
        public var leader: String?
        public var followers: [Replica]
    }

    public struct Consumer: Sendable {
        public var stream: String
        public var name: String
        /// Stored for it and not yet delivered.
        public var pending: UInt64
        /// Delivered and not yet acknowledged.
        public var unacknowledged: Int64
        public var redelivered: Int64
        public var leader: String?
    }

    public var connectedTo: String
    public var knownServers: [String]
    public var streams: [Stream] = []
    /// Locus streams that do not exist (no service has started yet).
    public var missing: [String] = []
    public var consumers: [Consumer] = []

    /// Locus's streams (both fix deliveries') and the geofence's state bucket.
    public static let streamNames = StreamLayout.all.map(\.name) + [StreamLayout.lastFixes.name, "KV_LOCUS_GEOFENCE"]
    /// Streams only some deployments have: the bucket, and the one of the fix delivery not in use.
    private static let optional: Set<String> = ["KV_LOCUS_GEOFENCE", StreamLayout.fixes.name, StreamLayout.lastFixes.name]

    public static func gather(_ connection: NATSConnection) throws(NATSError) -> NATSClusterReport {
        var url = [CChar](repeating: 0, count: 256)
        natsConnection_GetConnectedUrl(connection.connection, &url, url.count)
        var report = NATSClusterReport(connectedTo: String(cString: url), knownServers: connection.knownServers)
        for name in streamNames {
            var info: UnsafeMutablePointer<jsStreamInfo>?
            var code = jsErrCode(0)
            let status = js_GetStreamInfo(&info, connection.jetStream, name, nil, &code)
            if status == NATS_NOT_FOUND {
                if !optional.contains(name) { report.missing.append(name) }
                continue
            }
            try check(status, "cannot read stream \(name)")
            guard let info else { continue }
            defer { jsStreamInfo_Destroy(info) }
            let cluster = info.pointee.Cluster?.pointee
            var followers: [Replica] = []
            if let cluster, let list = cluster.Replicas {
                for index in 0..<Int(cluster.ReplicasLen) {
                    guard let peer = list[index]?.pointee else { continue }
                    followers.append(Replica(name: peer.Name.map { String(cString: $0) } ?? "?", current: peer.Current,
                                             offline: peer.Offline, lag: peer.Lag))
                }
            }
            report.streams.append(Stream(name: name, messages: info.pointee.State.Msgs, bytes: info.pointee.State.Bytes,
                                         replicas: Int(info.pointee.Config?.pointee.Replicas ?? 1),
                                         leader: cluster?.Leader.map { String(cString: $0) }, followers: followers))
            var list: UnsafeMutablePointer<jsConsumerInfoList>?
            guard js_Consumers(&list, connection.jetStream, name, nil, &code) == NATS_OK, let list else { continue }
            defer { jsConsumerInfoList_Destroy(list) }
            for index in 0..<Int(list.pointee.Count) {
                guard let consumer = list.pointee.List[index]?.pointee else { continue }
                report.consumers.append(Consumer(stream: name, name: consumer.Name.map { String(cString: $0) } ?? "?",
                                                 pending: consumer.NumPending, unacknowledged: consumer.NumAckPending,
                                                 redelivered: consumer.NumRedelivered,
                                                 leader: consumer.Cluster?.pointee.Leader.map { String(cString: $0) }))
            }
        }
        // Positions are kept by one of the two, as the deployment's --fix-delivery says.
        if !report.streams.contains(where: { $0.name == StreamLayout.fixes.name || $0.name == StreamLayout.lastFixes.name }) {
            report.missing.append(StreamLayout.fixes.name)
        }
        report.consumers.sort { ($0.stream, $0.name) < ($1.stream, $1.name) }
        return report
    }

    /// One consumer's backlog: stored for it and not yet delivered, and delivered but not yet
    /// acknowledged; nil when it does not exist (yet) or the servers do not answer.
    public static func backlog(_ connection: NATSConnection, stream: String, consumer: String) -> (pending: UInt64, unacknowledged: Int64)? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(0)
        guard js_GetConsumerInfo(&info, connection.jetStream, stream, consumer, nil, &code) == NATS_OK, let info else { return nil }
        defer { jsConsumerInfo_Destroy(info) }
        return (info.pointee.NumPending, info.pointee.NumAckPending)
    }
}
