public import LocusService
import CZeroMQ

/// What a client needs to join a CURVE bus: its own keypair and the bus's public key.
/// Services take them from `--curve-key FILE` / `--curve-server-key FILE` or
/// `LOCUS_CURVE_KEY` / `LOCUS_CURVE_SERVER_KEY`; without them sockets stay NULL (ipc).
public struct CurveClientOptions: Sendable, Equatable {
    public var keyPair: CurveKeyPair
    public var serverPublicKey: String

    public init(keyPair: CurveKeyPair, serverPublicKey: String) {
        self.keyPair = keyPair
        self.serverPublicKey = serverPublicKey
    }

    /// Loads both files; either both paths are given or neither (nil).
    public static func load(keyFile: String?, serverKeyFile: String?) throws(CurveKeyError) -> CurveClientOptions? {
        switch (keyFile, serverKeyFile) {
        case (nil, nil): return nil
        case let (key?, server?):
            return CurveClientOptions(keyPair: try CurveKeyFile.readPair(path: key),
                                      serverPublicKey: try CurveKeyFile.readPublicKey(path: server))
        default: throw CurveKeyError("CURVE needs both --curve-key and --curve-server-key")
        }
    }

    /// Makes `socket` a CURVE client of the server; call before `connect`.
    public func apply(to socket: ZMQSocket) throws(ZMQError) {
        try socket.setOption(ZMQ_CURVE_SERVERKEY, bytes: Array(serverPublicKey.utf8))
        try socket.setOption(ZMQ_CURVE_PUBLICKEY, bytes: Array(keyPair.publicKey.utf8))
        try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keyPair.secretKey.utf8))
    }
}
