public import LocusProtocol

/// One client's authorization as the bus keeps it: Core Location's status and accuracy,
/// a temporary full-accuracy grant, and requests waiting for the person to decide.
public struct ClientAuthorization: Sendable, Equatable {
    public var status: AuthorizationStatus = .notDetermined
    public var accuracy: AccuracyAuthorization = .full
    public var temporaryFull: TemporaryFull?
    public var pending: [PendingRequest] = []

    public init() {}

    /// A request waiting in `locus auth pending`.
    public struct PendingRequest: Sendable, Equatable {
        public var level: String
        public var purpose: String?
        public var description: String
        public var t: Double
    }

    /// What the client may receive now.
    public func tier(now: Double) -> AccessTier {
        switch status {
        case .notDetermined, .denied, .restricted: return .none
        case .whenInUse, .always:
            if accuracy == .full { return .full }
            if let grant = temporaryFull, grant.expires > now { return .full }
            return .reduced
        }
    }

    func statusMessage(client: String) -> AuthStatus {
        AuthStatus(client: client, status: status, accuracy: accuracy, temporaryFull: temporaryFull)
    }
}
