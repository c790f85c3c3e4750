import LocusProtocol

/// Writes the notification an event yields: its id (derived from the event's, so a replayed
/// event maps to the same id and receivers drop the repeat), its kind, its texts from the
/// catalog and the place it is about. Whether an event yields one at all is `EventRouter`'s
/// decision; this only writes it.
struct NotificationComposer {
    let catalog: MessageCatalog

    /// `{time}` of every template: ISO 8601 UTC to the second.
    static func timeText(_ t: Double) -> String {
        UTCTime(wholeSecondOf: t).iso8601Seconds
    }

    /// An enter, exit or dwell.
    func region(_ event: RegionEventSummary, eventID: String) -> NotificationRecord {
        let values = ["region": event.regionId, "owner": event.owner, "device": event.device, "time": Self.timeText(event.t)]
        var record = make(event.kind, id: "n-\(eventID)", ref: eventID, t: event.t, values: values, device: event.device,
                          lat: event.lat, lon: event.lon, accuracy: event.hacc)
        record.owner = event.owner
        record.region = event.regionId
        return record
    }

    /// One notification for a device's entries within the merge window (two or more),
    /// named after the first and placed at the last.
    func mergedEnter(_ burst: [BurstMerger.Entry]) -> NotificationRecord {
        let first = burst[0], last = burst[burst.count - 1]
        let regions = burst.map(\.event.regionId)
        let values = ["count": String(burst.count), "regions": regions.joined(separator: ", "), "device": first.event.device,
                      "time": Self.timeText(first.event.t)]
        var record = make(.mergedEnter, id: "n-merged-\(first.eventID)", ref: first.eventID, t: last.event.t, values: values,
                          device: first.event.device, lat: last.event.lat, lon: last.event.lon, accuracy: last.event.hacc)
        record.regions = regions
        return record
    }

    func visit(_ visit: Visit, id: String, t: Double) -> NotificationRecord {
        let kind: NotificationKind = visit.departure == nil ? .visitArrival : .visitDeparture
        let values = ["device": visit.device, "time": Self.timeText(visit.departure ?? visit.arrival)]
        return make(kind, id: "n-\(id)", ref: id, t: t, values: values, device: visit.device,
                    lat: visit.lat, lon: visit.lon, accuracy: visit.hacc)
    }

    func authorization(_ status: AuthStatus, id: String, t: Double) -> NotificationRecord {
        let values = ["client": status.client, "status": status.status.rawValue, "accuracy": status.accuracy.rawValue,
                      "time": Self.timeText(t)]
        return make(.authorization, id: "n-\(id)", ref: id, t: t, values: values, device: status.client)
    }

    /// A step closer to `destination` (`bucket` steps away), or the arrival when `bucket` is nil.
    func destination(_ destination: Destination, at location: Location, distance: Double, bucket: Int?, ref: String,
                     t: Double) -> NotificationRecord {
        let values = ["distance": String(Int(distance.rounded())), "device": location.device, "time": Self.timeText(t)]
        let (kind, id) = bucket.map { (NotificationKind.destinationProgress, "n-\(destination.id)-step-\($0)") }
            ?? (.destinationArrival, "n-\(destination.id)-arrival")
        var record = make(kind, id: id, ref: ref, t: t, values: values, device: location.device,
                          lat: location.lat, lon: location.lon, accuracy: location.hacc)
        record.distanceMeters = distance.rounded()
        return record
    }

    /// A `notify.request`, delivered as asked.
    func request(title: String, body: String, device: String?, id: String, t: Double) -> NotificationRecord {
        let values = ["title": title, "body": body, "device": device ?? "", "time": Self.timeText(t)]
        return make(.request, id: "n-\(id)", ref: id, t: t, values: values, device: device)
    }

    private func make(_ kind: NotificationKind, id: String, ref: String, t: Double, values: [String: String], device: String?,
                      lat: Double? = nil, lon: Double? = nil, accuracy: Double? = nil) -> NotificationRecord {
        let text = catalog.render(kind, values)
        return NotificationRecord(id: id, ref: ref, kind: kind, title: text.title, body: text.body, locale: catalog.locale,
                                  t: t, device: device, lat: lat, lon: lon, accuracyMeters: accuracy)
    }
}
