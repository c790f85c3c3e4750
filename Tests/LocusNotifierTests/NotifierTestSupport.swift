import Foundation
import LocusService
import LocusProtocol
@testable import LocusNotifier

/// A fresh directory under the system temporary directory, removed by the caller.
func makeTemporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("locus-notifier-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func regionEventMessage(id: String, t: Double, region: String, event: RegionEventKind, device: String = "truck-7") -> Message {
    let body = RegionEvent(owner: "app", regionId: region, device: device, event: event,
                           state: event == .exit ? .outside : .inside, cause: .crossing,
                           location: FixRef(lat: 31.23, lon: 121.47, hacc: 10, t: t))
    return Message(body: .regionEvent(body), id: id, t: t, src: "geofence/main")
}

func fusedLocation(id: String, t: Double, lat: Double, lon: Double, device: String = "truck-7") -> Message {
    let location = Location(device: device, source: "fused", lat: lat, lon: lon, hacc: 5)
    return Message(body: .location(location), id: id, t: t, src: "fusion/main")
}

/// A sink that fails a set number of times, then records what it delivered (thread-safe).
final class FlakySink: NotificationSink, @unchecked Sendable {
    let name: String
    private let lock = NSLock()
    private var failuresLeft: Int
    private(set) var attempts = 0
    private var received: [NotificationRecord] = []

    init(name: String, failures: Int) {
        self.name = name
        failuresLeft = failures
    }

    func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        lock.lock()
        defer { lock.unlock() }
        attempts += 1
        if failuresLeft > 0 {
            failuresLeft -= 1
            return .retry("down")
        }
        received.append(record)
        return .delivered
    }

    var delivered: [NotificationRecord] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}

extension Outbound {
    var notification: LocusProtocol.Notification? {
        if case .notification(let body) = body { return body }
        return nil
    }

    var errorReport: ErrorReport? {
        if case .error(let body) = body { return body }
        return nil
    }
}
