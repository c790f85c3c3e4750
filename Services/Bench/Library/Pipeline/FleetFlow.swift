import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// The client side of `FleetBusRun`: sends frames as fast as the stack keeps up, and
/// counts what comes back — floor fixes, region events, notifications and the markers'.
struct FleetFlow {
    let subscriber: BusSubscriber
    let publisher: BusPublisher
    let markerOwner: String
    let floorPrefix: String
    private var poller = Poller()
    private var floorReceived = 0
    private var regionReplies = 0
    private var regionFailure: String?
    /// Event ids of the fleet's events; the markers' (id → marker number) apart.
    private var eventIDs = Set<String>()
    private var markerEvents: [String: Int] = [:]
    /// Refs of delivered notifications, with how often each was delivered.
    private var deliveredRefs: [String: Int] = [:]
    private var notifiedMarkers = Set<Int>()

    init(subscriber: BusSubscriber, publisher: BusPublisher, markerOwner: String, floorPrefix: String) {
        self.subscriber = subscriber
        self.publisher = publisher
        self.markerOwner = markerOwner
        self.floorPrefix = floorPrefix
        poller.add(subscriber.socket)
    }

    /// Sends `frames` (on the floor topics) and returns the seconds until all came back.
    mutating func floor(_ frames: [(topic: String, body: [UInt8])]) throws -> Double {
        floorReceived = 0
        let start = Date().timeIntervalSince1970
        for (number, frame) in frames.enumerated() {
            try send(frame)
            // Keep well below the bus's queue limit towards this client, where it would drop.
            while number + 1 - floorReceived > 40_000 { try receive(waitingUpTo: 0.01) }
        }
        let deadline = Date().timeIntervalSince1970 + 60
        while floorReceived < frames.count {
            guard Date().timeIntervalSince1970 < deadline else { throw BenchFailure("only \(floorReceived) of \(frames.count) floor fixes came back") }
            try receive(waitingUpTo: 0.1)
        }
        return Date().timeIntervalSince1970 - start
    }

    /// Adds the regions and the marker region; returns once every one is acknowledged.
    mutating func addRegions(_ frames: [(topic: String, body: [UInt8])], marker: RegionAdd, t: Double) throws {
        regionReplies = 0
        for (number, frame) in frames.enumerated() {
            try send(frame)
            while number + 1 - regionReplies > 2_000 { try receive(waitingUpTo: 0.01) }
        }
        try publisher.publish(.regionAdd(marker), topic: Topic.regionCmd, t: t)
        let deadline = Date().timeIntervalSince1970 + 60
        while regionReplies < frames.count + 1 {
            if let regionFailure { throw BenchFailure(regionFailure) }
            guard Date().timeIntervalSince1970 < deadline else { throw BenchFailure("only \(regionReplies) regions acknowledged") }
            try receive(waitingUpTo: 0.1)
        }
    }

    /// Sends `frames` in chunks, each followed by its marker's fixes, keeping `chunksInFlight`
    /// chunks ahead of the last notified marker; returns the seconds until the last marker's
    /// notification arrived.
    mutating func pipeline(_ frames: [(topic: String, body: [UInt8])], chunk: Int, chunksInFlight: Int,
                           marker: (Int) -> [(topic: String, body: [UInt8])]) throws -> Double {
        let start = Date().timeIntervalSince1970
        var markers = 0
        for (number, frame) in frames.enumerated() {
            try send(frame)
            if number % 256 == 0 { try receive(waitingUpTo: 0) }
            guard number % chunk == chunk - 1 || number == frames.count - 1 else { continue }
            for fix in marker(markers) { try send(fix) }
            markers += 1
            if markers > chunksInFlight { try waitForMarker(markers - 1 - chunksInFlight, seconds: 120) }
        }
        try waitForMarker(markers - 1, seconds: 300)
        let seconds = Date().timeIntervalSince1970 - start
        // Anything still on its way (nothing should be: the last marker came after every event).
        let settle = Date().timeIntervalSince1970 + 0.5
        while Date().timeIntervalSince1970 < settle { try receive(waitingUpTo: 0.05) }
        return seconds
    }

    /// The fleet's events, their delivered notifications, events notified twice or more, and never.
    func tally() -> (events: Int, delivered: Int, duplicates: Int, missing: Int) {
        let fleetRefs = deliveredRefs.filter { eventIDs.contains($0.key) }
        return (eventIDs.count, fleetRefs.values.reduce(0, +), fleetRefs.values.filter { $0 > 1 }.count,
                eventIDs.subtracting(fleetRefs.keys).count)
    }

    private mutating func waitForMarker(_ marker: Int, seconds: Double) throws {
        let deadline = Date().timeIntervalSince1970 + seconds
        while !notifiedMarkers.contains(marker) {
            guard Date().timeIntervalSince1970 < deadline else { throw BenchFailure("marker \(marker) was not notified within \(Int(seconds)) s") }
            try receive(waitingUpTo: 0.1)
        }
    }

    /// Sends one frame; while the queue to the bus is full, reads what came back and tries again.
    private mutating func send(_ frame: (topic: String, body: [UInt8])) throws {
        while try !publisher.socket.send(topic: frame.topic, body: frame.body, dontWait: true) {
            try receive(waitingUpTo: 0.001)
        }
    }

    /// Reads everything waiting; waits up to `seconds` for the first message.
    private mutating func receive(waitingUpTo seconds: Double) throws {
        var waited = false
        while true {
            let got = try subscriber.socket.withReceivedFrames(dontWait: true) { frames in
                if frames.count == 2 { handle(topic: frames.first, body: frames.second) }
            }
            if got != nil { continue }
            if waited || seconds <= 0 { return }
            _ = try poller.poll(timeoutMilliseconds: max(1, Int(seconds * 1000)))
            waited = true
        }
    }

    /// Floor fixes are counted from their topic, events and notifications read for the few
    /// members the count needs, on bytes: this client shares the two cores with what it
    /// measures, so decoding them whole would take from it. Replies are decoded.
    private mutating func handle(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) {
        if topic.starts(with: floorPrefix.utf8) {
            floorReceived += 1
            return
        }
        if topic.starts(with: Topic.regionEventPrefix.utf8), let id = Self.member("id", in: body) {
            if topic.elementsEqual(Topic.regionEvent(markerOwner).utf8), let device = Self.member("device", in: body),
               device.hasPrefix("mark-"), let number = Int(device.dropFirst(5)) {
                markerEvents[id] = number
                if deliveredRefs[id] != nil { notifiedMarkers.insert(number) }
            } else {
                eventIDs.insert(id)
            }
            return
        }
        if topic.starts(with: Topic.notifyPrefix.utf8) {
            guard Self.member("status", in: body) == NotificationStatus.delivered.rawValue, let ref = Self.member("ref", in: body) else { return }
            deliveredRefs[ref, default: 0] += 1
            if let number = markerEvents[ref] { notifiedMarkers.insert(number) }
            return
        }
        guard let message = try? MessageCodec.decode(body) else { return }
        switch message.body {
        case .regionAdded:
            regionReplies += 1
        case .regionFailed(let failed):
            regionFailure = "region \(failed.regionId) refused: \(failed.message)"
        default:
            break
        }
    }

    /// The first string member `name` in a body as Locus writes it (`"name":"value"`, no escapes).
    static func member(_ name: String, in body: UnsafeRawBufferPointer) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        guard body.count > key.count else { return nil }
        var index = 0
        while index + key.count <= body.count {
            if body[index] == key[0], body[index..<(index + key.count)].elementsEqual(key) {
                let start = index + key.count
                guard let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: UnsafeRawBufferPointer(rebasing: body[start..<end]), as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}
