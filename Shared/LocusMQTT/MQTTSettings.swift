/// Where an MQTT connection goes and how it proves who it is: a broker address, an optional
/// username and password (MQTT's CONNECT), and TLS with a CA file and optionally a client
/// certificate. The same settings serve the notifier's MQTT sink and the OwnTracks provider.
public struct MQTTSettings: Sendable, Equatable {
    public var host: String
    public var port: Int32
    /// Also names this client to the broker; a fixed id with `cleanSession` false lets the
    /// broker keep QoS 1 messages for it while it is away.
    public var clientID: String
    public var cleanSession = true
    public var username: String?
    public var password: String?
    /// TLS is on when a CA file is given: the broker's certificate must chain to it and name the host.
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    public var keepAliveSeconds: Int32 = 30
    /// Longest wait for the broker's CONNACK, SUBACK or PUBACK.
    public var timeoutSeconds = 10.0

    public init(host: String, port: Int32, clientID: String) {
        self.host = host
        self.port = port
        self.clientID = clientID
    }

    public var usesTLS: Bool { caFile != nil }

    /// `host:port`, with `tls` noted, for log lines and errors.
    public var address: String { "\(host):\(port)" + (usesTLS ? " (TLS)" : "") }
}
