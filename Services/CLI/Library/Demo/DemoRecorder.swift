import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// Watches the demo's bus: records every message in the text form, prints what a person
/// wants to see as it happens, and counts what the summary reports.
final class DemoRecorder {
    let subscriber: BusSubscriber
    let publisher: BusPublisher
    let context = ZMQContext()
    private let file: FileHandle?
    private(set) var lines: [String] = []
    private(set) var rawFixes = 0
    private(set) var fusedFixes = 0
    private(set) var degradedFixes = 0
    private(set) var enters = 0
    private(set) var exits = 0
    private(set) var otherEvents = 0
    private(set) var notifications = 0
    private(set) var errors = 0
    private var firstFix: Double?

    init(endpoints: BusEndpoints, file path: String) throws {
        subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: [""])
        publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "demo/main")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        file = FileHandle(forWritingAtPath: path)
    }

    func close() {
        try? file?.close()
        subscriber.socket.close()
        publisher.socket.close()
    }

    /// Adds the scenario's regions and waits for the geofence to acknowledge each.
    func registerRegions() throws {
        guard try publisher.waitUntilConnected(timeoutSeconds: 5) else { throw DemoFailure("cannot publish on the bus") }
        var pending = Set(DemoScenario.regions.map(\.id))
        let deadline = Date().timeIntervalSince1970 + 15
        while !pending.isEmpty {
            for region in DemoScenario.regions where pending.contains(region.id) {
                try publisher.publish(.regionAdd(RegionAdd(owner: DemoScenario.owner, region: region)), topic: Topic.regionCmd,
                                      t: Date().timeIntervalSince1970)
            }
            let until = Date().timeIntervalSince1970 + 1
            while Date().timeIntervalSince1970 < until && !pending.isEmpty {
                for message in try receive(milliseconds: 100) {
                    if case .regionAdded(let added) = message.body { pending.remove(added.region.id) }
                    if case .regionFailed(let failed) = message.body {
                        throw DemoFailure("region \(failed.regionId) refused: \(failed.message)")
                    }
                }
            }
            if Date().timeIntervalSince1970 > deadline { throw DemoFailure("the geofence did not acknowledge \(pending.sorted())") }
        }
        print("regions registered: \(DemoScenario.regions.map(\.id).joined(separator: ", "))")
    }

    func pump(milliseconds: Int) throws {
        _ = try receive(milliseconds: milliseconds)
    }

    /// Receives for up to `milliseconds`, records and shows each message, and returns them.
    private func receive(milliseconds: Int) throws -> [Message] {
        var poller = Poller()
        poller.add(subscriber.socket)
        guard try poller.poll(timeoutMilliseconds: milliseconds)[0] else { return [] }
        var messages: [Message] = []
        while let received = try subscriber.receive(dontWait: true) {
            guard case let .message(topic, message, raw) = received else { continue }
            let line = TextForm.line(topic: topic, body: raw)
            lines.append(line)
            file?.write(Data((line + "\n").utf8))
            show(topic: topic, message: message)
            messages.append(message)
        }
        return messages
    }

    private func show(topic: String, message: Message) {
        switch message.body {
        case .location where topic.hasPrefix(Topic.locationRawPrefix):
            rawFixes += 1
        case .location(let location) where topic.hasPrefix(Topic.locationFusedPrefix):
            fusedFixes += 1
            let degraded = location.mode == "dr" || location.mode == "cache"
            if degraded { degradedFixes += 1 }
            let start = firstFix ?? message.envelope.t
            firstFix = start
            if fusedFixes % 5 == 1 || degraded {
                print(String(format: "%6.1f s  %@  %.5f, %.5f  ±%.0f m  %@%@", message.envelope.t - start, location.device,
                             location.lat, location.lon, location.hacc, location.tier ?? "", degraded ? "  (dead reckoning)" : ""))
            }
        case .regionEvent(let event):
            switch event.event {
            case .enter: enters += 1
            case .exit: exits += 1
            default: otherEvents += 1
            }
            print("  >> \(event.event.rawValue.uppercased()) \(event.regionId) (\(event.device), \(event.cause.rawValue))")
        case .notification(let notification) where notification.status == .delivered:
            notifications += 1
            print("  ✉  [\(notification.sink)] \(notification.title): \(notification.body)")
        case .error(let report):
            errors += 1
            print("  !! \(topic): \(report.message)")
        default:
            break
        }
    }
}
