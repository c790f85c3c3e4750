import CNATS
import Foundation

extension NATSConnection {
    /// How many copies a stream keeps: 3 on a cluster of three or more servers (one node may
    /// die with nothing lost), else one per known server.
    public var defaultReplicas: Int { max(1, min(3, Set(knownServers).count)) }

    /// Creates Locus's streams (`StreamLayout`) where they are missing. A stream that exists
    /// is used as it is, so an operator's settings (replicas, limits) are kept. Returns one
    /// line per stream for the log.
    /// With `delivery` plain, `LOCUS_FIXES` is not made; one left from a durable deployment
    /// would still store every plain fix (streams take any publish on their subjects), so
    /// it is reported as a line starting with "warning:" (delete it to save the servers' work).
    @discardableResult
    public func ensureStreams(replicas: Int? = nil, delivery: FixDelivery = .durable) throws(NATSError) -> [String] {
        let copies = replicas ?? defaultReplicas
        var report: [String] = []
        if delivery == .plain {
            var info: UnsafeMutablePointer<jsStreamInfo>?
            var code = jsErrCode(0)
            if js_GetStreamInfo(&info, jetStream, StreamLayout.fixes.name, nil, &code) == NATS_OK {
                report.append("warning: stream \(StreamLayout.fixes.name) exists, so the servers still store every fix published plainly "
                              + "(--fix-delivery plain); delete it once no service runs with --fix-delivery durable (docs/nats.md)")
            }
            jsStreamInfo_Destroy(info)
        }
        for stream in StreamLayout.streams(for: delivery) {
            var info: UnsafeMutablePointer<jsStreamInfo>?
            var code = jsErrCode(0)
            let found = js_GetStreamInfo(&info, jetStream, stream.name, nil, &code)
            if found == NATS_OK, let info {
                report.append("\(stream.name): existing, \(info.pointee.Config.pointee.Replicas) replica(s), \(info.pointee.State.Msgs) message(s)")
                jsStreamInfo_Destroy(info)
                continue
            }
            guard found == NATS_NOT_FOUND else {
                throw NATSError("cannot look up stream \(stream.name): \(Self.text(found))")
            }
            try add(stream, replicas: copies)
            report.append("\(stream.name): created with \(copies) replica(s)")
        }
        return report
    }

    private func add(_ stream: StreamLayout.Stream, replicas: Int) throws(NATSError) {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var code = jsErrCode(0)
        let status: natsStatus = try withCStrings(stream.subjects) { subjects in
            stream.name.withCString { name in
                config.Name = name
                config.Subjects = subjects
                config.SubjectsLen = Int32(stream.subjects.count)
                config.Storage = js_FileStorage
                config.Replicas = Int64(replicas)
                config.MaxAge = Int64(stream.maximumAgeSeconds * 1e9)
                config.MaxMsgsPerSubject = stream.maximumPerSubject > 0 ? Int64(stream.maximumPerSubject) : -1
                config.Duplicates = 120 * 1_000_000_000  // the window in which a repeated Nats-Msg-Id is dropped
                config.AllowDirect = true
                return js_AddStream(nil, jetStream, &config, nil, &code)
            }
        }
        // Another service may have created it a moment ago with the same settings.
        if status == NATS_OK || code == JSStreamNameExistErr { return }
        throw NATSError("cannot create stream \(stream.name) (\(replicas) replica(s)): \(Self.text(status))")
    }
}
