/// What a notification is about; each kind has its own title and body template.
public enum NotificationKind: String, Sendable, Equatable, CaseIterable, Codable {
    case enter, exit, dwell
    /// Several region entries merged into one notification (`--merge-window`).
    case mergedEnter
    case visitArrival, visitDeparture
    case authorization
    case destinationProgress, destinationArrival
    /// A free-form request published on `notify.request`.
    case request

    /// The placeholders a template of this kind may use; anything else is rejected when the catalog loads.
    public var placeholders: Set<String> {
        let common: Set<String> = ["device", "time"]
        switch self {
        case .enter, .exit, .dwell: return common.union(["region", "owner"])
        case .mergedEnter: return common.union(["count", "regions"])
        case .visitArrival, .visitDeparture: return common
        case .authorization: return ["client", "status", "accuracy", "time"]
        case .destinationProgress, .destinationArrival: return common.union(["distance"])
        case .request: return common.union(["title", "body"])
        }
    }
}
