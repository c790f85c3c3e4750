import LocusProtocol

/// What routing one event asks of the outbox, in order (`OutboxWrites` carries it out).
enum RoutingStep: Equatable {
    /// Store the notification (a repeat of a stored id is dropped) and hand it to the sinks.
    case notify(NotificationRecord)
    /// Inside its cooldown: recorded `suppressed` on every sink, not stored.
    case suppress(NotificationRecord)
    /// Keep a device's destination (nil: forget it).
    case saveDestination(device: String, Destination?)
    case reject(code: String, message: String)
    case count(String, by: Int = 1)
}

/// Decides what notifications an event yields — region events, visits, authorization
/// changes, destination progress and requests — with the state those decisions depend on:
/// cooldowns, open bursts, destinations, each client's last authorization. A value, so the
/// notifier keeps a copy from before a transaction and puts it back when the transaction
/// fails: an event routed again meets exactly the state it first met.
struct EventRouter {
    let composer: NotificationComposer
    let arrivalRadiusMeters: Double
    let progressStepMeters: Double
    var cooldown: Cooldown
    var merger: BurstMerger
    var destinations: [String: Destination] = [:]
    var authorizations: [String: AuthStatus] = [:]

    init(configuration: NotifierConfiguration) {
        composer = NotificationComposer(catalog: configuration.catalog)
        arrivalRadiusMeters = configuration.arrivalRadiusMeters
        progressStepMeters = configuration.progressStepMeters
        cooldown = Cooldown(windowSeconds: configuration.cooldownSeconds)
        merger = BurstMerger(windowSeconds: configuration.mergeWindowSeconds)
    }

    /// Whether `message` is an event notified at most once by id: its id must be a first
    /// sighting in the outbox before it is routed (a repeat, also one from before a restart,
    /// yields nothing).
    static func isOnceOnly(_ message: Message, topic: String) -> Bool {
        switch message.body {
        case .regionEvent: return topic.hasPrefix(Topic.regionEventPrefix)
        case .visit: return topic.hasPrefix(Topic.visitPrefix)
        case .authStatus: return topic.hasPrefix(Topic.authStatusPrefix)
        case .other: return topic == Topic.notifyRequest
        default: return false
        }
    }

    /// The steps `message` on `topic` asks for (a once-only event after its first sighting).
    mutating func route(_ message: Message, topic: String) -> [RoutingStep] {
        let id = message.envelope.id
        let t = message.envelope.t
        switch message.body {
        case .regionEvent(let event) where topic.hasPrefix(Topic.regionEventPrefix):
            return regionEvent(event, id: id, t: t)
        case .visit(let visit) where topic.hasPrefix(Topic.visitPrefix):
            return [.notify(composer.visit(visit, id: id, t: t))]
        case .authStatus(let status) where topic.hasPrefix(Topic.authStatusPrefix):
            let previous = authorizations.updateValue(status, forKey: status.client)
            guard let previous, previous.status != status.status || previous.accuracy != status.accuracy else { return [] }
            return [.notify(composer.authorization(status, id: id, t: t))]
        case .location(let location) where topic.hasPrefix(Topic.locationFusedPrefix):
            return destinationProgress(location, id: id, t: t)
        case .other(let type, let fields) where topic == Topic.notifyRequest:
            do { return request(try NotifyRequest(type: type, fields: fields), id: id, t: t) } catch {
                return [.reject(code: "invalidRequest", message: error.message)]
            }
        default:
            return [.reject(code: "unexpectedType", message: "'\(message.body.type)' is not handled on \(topic)")]
        }
    }

    /// The merged entries whose window has closed at `now` (nil: all of them).
    mutating func dueBursts(now: Double?) -> [RoutingStep] {
        merger.due(now: now).flatMap { burst(_: $0) }
    }

    private mutating func regionEvent(_ event: RegionEvent, id: String, t: Double) -> [RoutingStep] {
        let kind: NotificationKind
        switch event.event {
        case .enter: kind = .enter
        case .exit: kind = .exit
        case .dwell: kind = .dwell
        case .state: return [.count("stateEventsIgnored")]
        // A corridor's `exit` (notified) comes with it; the notice adds no second notification.
        case .deviated: return [.count("deviatedEventsIgnored")]
        }
        let summary = RegionEventSummary(owner: event.owner, regionId: event.regionId, device: event.device, kind: kind, t: t,
                                         lat: event.location.lat, lon: event.location.lon, hacc: event.location.hacc)
        if kind == .enter && merger.isEnabled {
            merger.add(.init(eventID: id, event: summary), device: event.device, t: t)
            return dueBursts(now: t)
        }
        return [single(summary, eventID: id)]
    }

    /// One region notification, unless its region, device and kind notified within the cooldown.
    private mutating func single(_ event: RegionEventSummary, eventID: String) -> RoutingStep {
        let record = composer.region(event, eventID: eventID)
        guard cooldown.isEnabled else { return .notify(record) }
        let key = "\(event.owner)/\(event.regionId)/\(event.device)/\(event.kind.rawValue)"
        return cooldown.allow(key, t: record.t) ? .notify(record) : .suppress(record)
    }

    private mutating func burst(_ entries: [BurstMerger.Entry]) -> [RoutingStep] {
        guard let first = entries.first else { return [] }
        if entries.count == 1 { return [single(first.event, eventID: first.eventID)] }
        return [.count("merged", by: entries.count - 1), .notify(composer.mergedEnter(entries))]
    }

    private mutating func destinationProgress(_ location: Location, id: String, t: Double) -> [RoutingStep] {
        guard var destination = destinations[location.device] else { return [] }
        switch destination.update(lat: location.lat, lon: location.lon) {
        case .none:
            return []
        case let .progress(distance, bucket):
            destinations[location.device] = destination
            return [.notify(composer.destination(destination, at: location, distance: distance, bucket: bucket, ref: id, t: t)),
                    .saveDestination(device: location.device, destination)]
        case .arrived(let distance):
            destinations[location.device] = nil
            return [.notify(composer.destination(destination, at: location, distance: distance, bucket: nil, ref: id, t: t)),
                    .saveDestination(device: location.device, nil)]
        }
    }

    private mutating func request(_ request: NotifyRequest, id: String, t: Double) -> [RoutingStep] {
        switch request {
        case let .notify(title, body, device):
            return [.notify(composer.request(title: title, body: body, device: device, id: id, t: t))]
        case let .setDestination(device, lat, lon, radius, step):
            let destination = Destination(id: id, device: device, lat: lat, lon: lon, radiusMeters: radius ?? arrivalRadiusMeters,
                                          stepMeters: step ?? progressStepMeters, lastBucket: nil)
            destinations[device] = destination
            return [.saveDestination(device: device, destination)]
        case .clearDestination(let device):
            destinations[device] = nil
            return [.saveDestination(device: device, nil)]
        }
    }
}
