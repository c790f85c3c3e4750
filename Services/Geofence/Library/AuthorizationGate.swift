public import LocusProtocol

/// Tracks each owner's authorization from `auth.status.<owner>`: region monitoring needs
/// `always`, as Core Location requires for background region monitoring.
public struct AuthorizationGate: Sendable, Equatable {
    /// Assumed for owners with no status yet; nil means `notDetermined`.
    public var defaultStatus: AuthorizationStatus?
    private var statuses: [String: AuthorizationStatus] = [:]

    public init(defaultStatus: AuthorizationStatus?) {
        self.defaultStatus = defaultStatus
    }

    public func status(of owner: String) -> AuthorizationStatus {
        statuses[owner] ?? defaultStatus ?? .notDetermined
    }

    /// Whether the owner may monitor regions and receive their events.
    public func allowsMonitoring(_ owner: String) -> Bool {
        status(of: owner).allowsRegionMonitoring
    }

    /// Why the owner may not monitor regions, and what to run: the person at the keyboard is
    /// the one who grants it on a single host, so the refusal names the exact command.
    public func refusal(_ owner: String) -> String {
        let status = status(of: owner)
        let why = "owner \(owner) has authorization \(status.rawValue), region monitoring needs always"
        if status == .restricted { return why + " (restricted by administrator policy: the allow-list decides)" }
        return why + "; grant it with: " + AuthStatus.grantCommand(client: owner, level: "always")
    }

    public mutating func update(_ owner: String, status: AuthorizationStatus) {
        statuses[owner] = status
    }
}
