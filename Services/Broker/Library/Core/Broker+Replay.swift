import CZeroMQ
import Foundation
import LocusBus
import LocusProtocol
import LocusService
import LocusStore

/// The broker's memory of events: the replay ring (and its file, when the bus has a state
/// directory) fed by every forwarded message, and the `bus.replay` requests it answers.
extension Broker {
    /// Reloads the saved ring (entries still within the age bound) and rewrites the file from it.
    static func openReplayLog(configuration: BrokerConfiguration, ring: inout ReplayRing,
                              log: ServiceLog) -> (ReplayRingLog?, Bool) {
        guard let directory = configuration.stateDirectory, ring.capacity > 0 else { return (nil, false) }
        let file: ReplayRingLog
        do { file = try ReplayRingLog(directory: directory, compactAfter: max(1_024, ring.capacity / 2)) } catch {
            log.error("replay ring kept in memory only: cannot use \(directory): \(error)")
            return (nil, false)
        }
        let existed = file.exists
        let oldest = Date().timeIntervalSince1970 - ring.maxAgeSeconds
        for entry in file.load() where entry.receivedAt >= oldest { ring.insert(entry) }
        file.rewrite(ring.entries)
        if existed { log.info("restarted: \(ring.count) event message(s) reloaded for bus.replay from \(file.path)") }
        return (file, existed)
    }

    /// Called by the Forwarder for each message it forwarded: the last-value cache and the ring keep it.
    func didForward(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) {
        cache.store(topic: topic, body: body)
        if replayRing.store(topic: topic, body: body, now: { Date().timeIntervalSince1970 }), let replayLog,
           let entry = replayRing.newest {
            replayLog.append(entry)
        }
    }

    /// Writes the batch's ring entries to the file, compacting it when it grew too long.
    /// While the file cannot be written the entries wait (the ring itself keeps forwarding
    /// and answering replays) and writes are retried on `storage`'s back-off; once the
    /// unwritten entries outnumber the ring the file is rewritten from the ring instead.
    func persistReplayRing(backend: ZMQSocket) {
        guard let replayLog else { return }
        let now = Date().timeIntervalSince1970
        if storage.isFailing {
            replayLog.giveUpBufferIfLarger(than: replayRing.count)
            guard storage.isRetryDue(now: now) else { return }
        }
        // A file removed with its directory is written anew from the ring (directory included).
        if replayLog.needsRewrite || replayLog.fault?.kind == .gone { replayLog.rewrite(replayRing.entries) } else { replayLog.flush() }
        if replayLog.fault == nil && replayLog.needsCompaction(ringCount: replayRing.count) { replayLog.rewrite(replayRing.entries) }
        noteStorage(replayLog.fault, holding: "keeping the replay ring in memory", backend: backend, now: now)
    }


    /// Answers a `bus.replay` request (the Forwarder hands it over instead of forwarding it):
    /// re-sends the matching ring messages in their original order, then the marker.
    func serveReplay(body: UnsafeRawBufferPointer, backend: ZMQSocket) throws(ZMQError) {
        let now = Date().timeIntervalSince1970
        let message: Message
        let request: BusReplayRequest
        do throws(ProtocolError) {
            message = try MessageCodec.decode(body)
            guard case .other(BusReplayRequest.type, let fields) = message.body else {
                throw ProtocolError(code: .invalidValue, field: "type", message: "expected type bus.replay on topic bus.replay")
            }
            request = try BusReplayRequest(fields: fields)
        } catch {
            otherCounters.add("replayRejected")
            log.warn("rejected a replay request: \(error)")
            publish(.error(ErrorReport(code: "invalidReplay", message: error.message, topic: BusReplayRequest.topic)),
                    topic: Topic.error("bus"), on: backend, now: now)
            return
        }
        let entries = replayRing.matching(prefixes: request.prefixes, since: request.since, now: now)
        var sent = 0
        for entry in entries {
            if try !backend.send(entry.topic, more: true, dontWait: true) {
                dropped += 1
                continue
            }
            try backend.send(entry.body)
            sent += 1
        }
        otherCounters.add("replayRequests")
        otherCounters.add("replayedEvents", sent)
        log.info("replayed \(sent) message(s) to \(request.requester) (\(request.prefixes.joined(separator: " ")) since \(request.since.map { String($0) } ?? "any time"))")
        publish(BusReplayed(re: message.envelope.id, count: sent).body, topic: request.markerTopic, on: backend, now: now)
    }
}
