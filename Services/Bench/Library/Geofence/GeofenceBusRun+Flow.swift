import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// Feeding the service: the fleet with flow control, region acknowledgements, latency probes.
extension GeofenceBusRun {
    /// Publishes `frames` as fast as the service keeps up and waits until it has handled
    /// all of them; returns the time taken and the events seen.
    ///
    /// Flow control: fixes go in chunks, each followed by a marker command; a chunk is sent
    /// only when the marker `chunksInFlight` chunks back has been answered. That keeps more
    /// than two of the service's batches (up to 16 384 fixes each) waiting for it, so it
    /// does not idle between them (with two chunks in flight the machine stood 15–20 % idle),
    /// and keeps the queues well below the bus's limit, where the bus would drop (and count)
    /// for a slow subscriber. A full queue to the bus makes a send fail (the publisher's
    /// socket does not drop), and the loop then reads and tries again.
    func drive(_ frames: [(topic: String, body: [UInt8])], publisher: BusPublisher, subscriber: BusSubscriber,
                       t0: Double) throws -> (seconds: Double, events: Int) {
        var events = 0
        var replies = Set<String>()
        // Events are counted from their topic frame alone and only the markers' replies are
        // decoded: this client shares the two cores with the bus and the service, so every
        // microsecond it spends per event is taken from what is being measured.
        let eventPrefix = Array(Topic.regionEventPrefix.utf8)
        var poller = Poller()
        poller.add(subscriber.socket)
        func receiveOne() throws -> Bool {
            guard let frames = try subscriber.socket.receiveMultipart(dontWait: true) else { return false }
            guard frames.count == 2 else { return true }
            if frames[0].starts(with: eventPrefix) {
                events += 1
            } else if let message = try? MessageCodec.decode(frames[1]), case .regionList(let reply) = message.body, let re = reply.re {
                replies.insert(re)
            }
            return true
        }
        func receive(waitingUpTo seconds: Double) throws {
            let deadline = Date().timeIntervalSince1970 + seconds
            while try !receiveOne() {
                let left = deadline - Date().timeIntervalSince1970
                if left <= 0 { return }
                _ = try poller.poll(timeoutMilliseconds: max(1, min(100, Int(left * 1000))))
            }
        }
        func answered(_ marker: String, seconds: Double) throws -> Bool {
            let deadline = Date().timeIntervalSince1970 + seconds
            while !replies.contains(marker) && Date().timeIntervalSince1970 < deadline {
                try receive(waitingUpTo: deadline - Date().timeIntervalSince1970)
            }
            return replies.contains(marker)
        }
        func sendAll(_ topic: String, _ body: [UInt8]) throws {
            while try !publisher.socket.send(topic: topic, body: body, dontWait: true) {
                try receive(waitingUpTo: 0.001)
            }
        }
        let chunk = 10_000
        let chunksInFlight = 4
        var markers: [String] = []
        let start = Date().timeIntervalSince1970
        for (number, frame) in frames.enumerated() {
            try sendAll(frame.topic, frame.body)
            if number % 256 == 0 {
                while try receiveOne() {}
            }
            if number % chunk == chunk - 1 || number == frames.count - 1 {
                let marker = publisher.stamp(.regionListRequest(RegionListRequest(owner: "bench-marker")), topic: Topic.regionCmd, t: t0)
                markers.append(marker.envelope.id)
                try sendAll(Topic.regionCmd, MessageCodec.encode(marker))
                if markers.count >= chunksInFlight {
                    guard try answered(markers[markers.count - chunksInFlight], seconds: 60) else { throw BenchError("the geofence stopped answering") }
                }
            }
        }
        guard try answered(markers.last ?? "", seconds: 120) else { throw BenchError("the geofence did not finish the fixes within 120 s") }
        return (Date().timeIntervalSince1970 - start, events)
    }

    func drainReplies(_ next: (Double) throws -> Message?) throws -> Int {
        var count = 0
        while let message = try next(0.001) {
            if case .regionAdded = message.body { count += 1 }
            if case .regionFailed(let failed) = message.body { throw BenchError("region \(failed.regionId) refused: \(failed.message)") }
        }
        return count
    }

    /// One device at a time walks into a 200 m circle far from the fleet: an outside fix, an
    /// inside fix, and an inside fix after the debounce — the last one decides; the time
    /// from sending it to receiving its `enter` is one sample.
    func measureLatency(publisher: BusPublisher, next: (Double) throws -> Message?, ids: inout MessageIDGenerator) throws -> [Double] {
        let center = Coordinate(lat: 10, lon: 10)
        try publisher.publish(.regionAdd(RegionAdd(owner: "latency", region: Region(id: "gate", shape: .circle(
            center: GeoPoint(lon: center.lon, lat: center.lat), radius: 200)))), topic: Topic.regionCmd, t: 0)
        while let message = try next(5) {
            if case .regionAdded(let added) = message.body, added.owner == "latency" { break }
        }
        let outside = Geodesic.destination(from: center, azimuthDegrees: 0, distanceMeters: 1000)
        var samples: [Double] = []
        for number in 0..<latencySamples {
            let device = "probe-\(number)"
            let t = 1_800_000_000.0
            func send(_ p: Coordinate, _ time: Double) throws {
                let fix = Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)
                try publisher.send(topic: Topic.locationFused(device), body: MessageCodec.encode(Message(body: .location(fix), id: ids.next(), t: time, src: "bench/probe")))
            }
            try send(outside, t)
            try send(center, t + 1)
            let sent = Date().timeIntervalSince1970
            try send(center, t + 12)
            while let message = try next(5) {
                if case .regionEvent(let event) = message.body, event.device == device, event.event == .enter {
                    samples.append(Date().timeIntervalSince1970 - sent)
                    break
                }
            }
        }
        return samples
    }
}
