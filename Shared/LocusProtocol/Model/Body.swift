/// The typed payload of a message, one case per v1 type. Unknown types are kept as
/// `.other` rather than rejected, so old readers tolerate new writers.
public enum Body: Sendable, Equatable {
    case location(Location)
    case regionAdd(RegionAdd)
    case regionRemove(RegionRemove)
    case regionListRequest(RegionListRequest)
    case regionRequestState(RegionRequestState)
    case regionAdded(RegionAdded)
    case regionRemoved(RegionRemoved)
    case regionFailed(RegionFailed)
    case regionList(RegionListReply)
    case regionEvent(RegionEvent)
    case authRequest(AuthRequest)
    case authSet(AuthSet)
    case authStatus(AuthStatus)
    case motion(Motion)
    case control(Control)
    case visit(Visit)
    case notification(Notification)
    case health(Health)
    case error(ErrorReport)
    /// A type this version does not know; `fields` is the body object without the envelope.
    case other(type: String, fields: JSONValue)

    /// The wire name of the type ("location", "region.add", ...).
    public var type: String {
        switch self {
        case .location: return MessageType.location
        case .regionAdd: return MessageType.regionAdd
        case .regionRemove: return MessageType.regionRemove
        case .regionListRequest: return MessageType.regionList
        case .regionRequestState: return MessageType.regionRequestState
        case .regionAdded: return MessageType.regionAdded
        case .regionRemoved: return MessageType.regionRemoved
        case .regionFailed: return MessageType.regionFailed
        case .regionList: return MessageType.regionList
        case .regionEvent: return MessageType.regionEvent
        case .authRequest: return MessageType.authRequest
        case .authSet: return MessageType.authSet
        case .authStatus: return MessageType.authStatus
        case .motion: return MessageType.motion
        case .control: return MessageType.control
        case .visit: return MessageType.visit
        case .notification: return MessageType.notification
        case .health: return MessageType.health
        case .error: return MessageType.error
        case .other(let type, _): return type
        }
    }
}

/// The wire names of the v1 message types.
public enum MessageType {
    public static let location = "location"
    public static let regionAdd = "region.add"
    public static let regionRemove = "region.remove"
    /// Both the request (on `region.cmd`, no `regions`) and the reply (with `regions`).
    public static let regionList = "region.list"
    public static let regionRequestState = "region.requestState"
    public static let regionAdded = "region.added"
    public static let regionRemoved = "region.removed"
    public static let regionFailed = "region.failed"
    public static let regionEvent = "region.event"
    public static let authRequest = "auth.request"
    public static let authSet = "auth.set"
    public static let authStatus = "auth.status"
    public static let motion = "motion"
    public static let control = "control"
    public static let visit = "visit"
    public static let notification = "notification"
    public static let health = "health"
    public static let error = "error"
}
