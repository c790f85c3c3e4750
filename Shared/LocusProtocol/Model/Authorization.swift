/// Authorization, as Core Location models it: a status per client plus an accuracy grant.

public enum AuthorizationStatus: String, Sendable, Equatable, CaseIterable {
    case notDetermined, restricted, denied, whenInUse, always

    /// Location may be used at all (Core Location's `whenInUse` or `always`).
    public var isAuthorized: Bool { self == .whenInUse || self == .always }

    /// Region monitoring may run: as on iOS, it needs `always`. The one place the rule lives.
    public var allowsRegionMonitoring: Bool { self == .always }
}

public enum AccuracyAuthorization: String, Sendable, Equatable, CaseIterable {
    case full, reduced
}

/// A client asks for access. Type "auth.request" on `auth.cmd`.
public struct AuthRequest: Sendable, Equatable {
    public var client: String
    /// whenInUse, always or temporaryFull.
    public var level: String
    /// Why the client wants it (shown to the person who grants it).
    public var purpose: String?

    public init(client: String, level: String, purpose: String? = nil) {
        self.client = client
        self.level = level
        self.purpose = purpose
    }

    /// The levels validation accepts.
    public static let levels: Set<String> = ["whenInUse", "always", "temporaryFull"]
}

/// An administrator sets a client's authorization. Type "auth.set" on `auth.cmd`.
public struct AuthSet: Sendable, Equatable {
    public var client: String
    public var status: AuthorizationStatus?
    public var accuracy: AccuracyAuthorization?

    public init(client: String, status: AuthorizationStatus? = nil, accuracy: AccuracyAuthorization? = nil) {
        self.client = client
        self.status = status
        self.accuracy = accuracy
    }
}

/// A temporary grant of full accuracy (Core Location's `requestTemporaryFullAccuracyAuthorization`).
public struct TemporaryFull: Sendable, Equatable {
    public var purpose: String
    /// When the grant ends, seconds since the Unix epoch.
    public var expires: Double

    public init(purpose: String, expires: Double) {
        self.purpose = purpose
        self.expires = expires
    }
}

/// A client's current authorization. Type "auth.status" on `auth.status.<client>`.
public struct AuthStatus: Sendable, Equatable {
    /// The command a person runs to grant `level` to `client` (`locus auth grant world always`),
    /// so every refusal for want of authorization can say exactly what to do.
    public static func grantCommand(client: String, level: String) -> String { "locus auth grant \(client) \(level)" }

    public var client: String
    public var status: AuthorizationStatus
    public var accuracy: AccuracyAuthorization
    public var temporaryFull: TemporaryFull?

    public init(client: String, status: AuthorizationStatus, accuracy: AccuracyAuthorization, temporaryFull: TemporaryFull? = nil) {
        self.client = client
        self.status = status
        self.accuracy = accuracy
        self.temporaryFull = temporaryFull
    }
}
