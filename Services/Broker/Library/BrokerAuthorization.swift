public import LocusBus
public import LocusService

/// How a broker authenticates and authorizes; nil in `BrokerConfiguration` keeps the open
/// bus of one host (every subscriber sees everything, as before).
public struct BrokerAuthorization: Sendable {
    public var allowList: AllowList
    /// The bus's CURVE keypair: tcp endpoints become CURVE servers with the ZAP handler.
    public var serverKeys: CurveKeyPair?
    /// Where `auth-state.json` lives; nil keeps state in memory only.
    public var stateDirectory: String?
    /// The identity of NULL connections on ipc (a 0700 directory): a trusted local service and admin.
    public var localClient: String = "local"

    public init(allowList: AllowList, serverKeys: CurveKeyPair? = nil, stateDirectory: String? = nil) {
        self.allowList = allowList
        self.serverKeys = serverKeys
        self.stateDirectory = stateDirectory
    }

    var localIdentity: ClientIdentity { ClientIdentity(name: localClient, roles: Set(ClientRole.allCases)) }
}
