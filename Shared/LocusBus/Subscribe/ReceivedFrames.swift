public import LocusService
/// One multipart message as received, its bytes borrowed from libzmq rather than copied:
/// the receive path decodes a Locus message (topic, body) straight from them.
///
/// The buffers are valid only inside the closure given to `ZMQSocket.withReceivedFrames`.
public struct ReceivedFrames {
    /// How many frames the message had; every one of them was consumed.
    public let count: Int
    /// The first frame (the topic of a Locus message).
    public let first: UnsafeRawBufferPointer
    /// The second frame (the body of a Locus message); empty when there is none.
    public let second: UnsafeRawBufferPointer
}
