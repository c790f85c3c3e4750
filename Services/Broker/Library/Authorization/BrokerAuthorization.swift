public import LocusBus
public import LocusProtocol
public import LocusService

/// How a broker authenticates and authorizes. Every bus is the authorization authority;
/// without an allow-list it is the local bus of one user: every connection is the local
/// identity, clients and owners are named by id, and nothing is filtered per subscriber.
public struct BrokerAuthorization: Sendable {
    /// Clients with keys, roles and manifests; nil keeps the local bus (no per-client filtering).
    public var allowList: AllowList?
    /// The bus's CURVE keypair: tcp endpoints become CURVE servers with the ZAP handler.
    public var serverKeys: CurveKeyPair?
    /// Where `auth-state.json` lives; nil keeps state in memory only.
    public var stateDirectory: String?
    /// Why `stateDirectory` is what it is, for the start-up log ("--state", "default beside the ipc endpoints", …).
    public var stateDirectoryOrigin = "--state"
    /// The single-user host's policy: requests from clients named by id are decided at once up to this level.
    public var localGrant: AuthorizationStatus?
    /// The identity of NULL connections on ipc (a 0700 directory): a trusted local service and admin.
    public var localClient: String = "local"

    public init(allowList: AllowList? = nil, serverKeys: CurveKeyPair? = nil, stateDirectory: String? = nil,
                localGrant: AuthorizationStatus? = nil) {
        self.allowList = allowList
        self.serverKeys = serverKeys
        self.stateDirectory = stateDirectory
        self.localGrant = localGrant
    }

    /// Whether subscriptions and publications are checked per client (an allow-list is loaded).
    public var filtersClients: Bool { allowList != nil }

    var localIdentity: ClientIdentity { ClientIdentity(name: localClient, roles: Set(ClientRole.allCases)) }

    /// The authority's starting point: the allow-list's entries and policies, or clients named by id.
    func makeAuthority(records: [String: ClientAuthorization]) -> Authority {
        if let allowList { return Authority(allowList: allowList, records: records) }
        return Authority.local(localGrant: localGrant, records: records)
    }
}
