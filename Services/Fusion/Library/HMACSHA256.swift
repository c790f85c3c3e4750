import CSodium

/// HMAC-SHA-256 (RFC 2104) from libsodium: the keyed hash behind the reduced-accuracy
/// offsets, so they can be recomputed after a restart from the secret alone but not
/// guessed without it. The key is absorbed once; each code starts from a copy of that state.
public struct HMACSHA256: Sendable {
    private let keyed: crypto_auth_hmacsha256_state

    /// A key of any length; one longer than SHA-256's 64-byte block is hashed first (RFC 2104).
    public init(key: [UInt8]) {
        precondition(Self.sodiumReady, "libsodium failed to initialise")
        var state = crypto_auth_hmacsha256_state()
        // An empty array may have no storage; libsodium wants a pointer even for no bytes.
        let bytes = key.isEmpty ? [0] : key
        _ = bytes.withUnsafeBufferPointer { crypto_auth_hmacsha256_init(&state, $0.baseAddress!, key.count) }
        keyed = state
    }

    /// The 32-byte code of `message` under this key.
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        var state = keyed
        var code = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        let bytes = message.isEmpty ? [0] : message
        _ = bytes.withUnsafeBufferPointer { crypto_auth_hmacsha256_update(&state, $0.baseAddress!, UInt64(message.count)) }
        _ = code.withUnsafeMutableBufferPointer { crypto_auth_hmacsha256_final(&state, $0.baseAddress!) }
        return code
    }

    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACSHA256(key: key).authenticationCode(for: message)
    }

    /// `sodium_init` once per process, before the first use (it is safe to call again).
    private static let sodiumReady = sodium_init() >= 0
}
