/// HMAC-SHA256 (RFC 2104): the keyed hash behind the reduced-accuracy offsets, so they can
/// be recomputed after a restart from the secret alone but not guessed without it.
public enum HMACSHA256 {
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockBytes ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockBytes - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
