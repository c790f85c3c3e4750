public import LocusService
import CZeroMQ
import Foundation

/// A CURVE keypair in Z85 text (40 characters each), the form libzmq's socket options
/// take. Secret keys live in files of mode 0600 and are never logged: `description`
/// shows the public key only.
public struct CurveKeyPair: Sendable, Equatable, CustomStringConvertible {
    public var publicKey: String
    public var secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    public var description: String { "CurveKeyPair(public: \(publicKey))" }

    /// A fresh keypair from libzmq (`zmq_curve_keypair`, backed by the system's random source).
    public static func generate() throws(CurveKeyError) -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else {
            throw CurveKeyError("libzmq cannot generate CURVE keys (built without CURVE?)")
        }
        return CurveKeyPair(publicKey: Self.text(publicText), secretKey: Self.text(secretText))
    }

    /// The public key that belongs to a Z85 secret key (`zmq_curve_public`).
    public static func publicKey(forSecret secret: String) throws(CurveKeyError) -> String {
        guard CurveKeyPair.isZ85Key(secret) else { throw CurveKeyError("a CURVE key is 40 Z85 characters") }
        var publicText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicText, secret) == 0 else { throw CurveKeyError("not a valid Z85 secret key") }
        return text(publicText)
    }

    /// Whether `text` is a 40-character Z85 key (the alphabet of ZeroMQ RFC 32).
    public static func isZ85Key(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 40 else { return false }
        var decoded = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&decoded, text) != nil
    }

    /// The 32 raw bytes of a Z85 key, as ZAP hands them to the handler.
    public static func z85Encode(_ raw: [UInt8]) -> String? {
        guard raw.count == 32 else { return nil }
        var out = [CChar](repeating: 0, count: 41)
        guard zmq_z85_encode(&out, raw, raw.count) != nil else { return nil }
        return text(out)
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a key or key file could not be used; the message never contains secret material.
public struct CurveKeyError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
