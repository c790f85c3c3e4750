import CNATS
import Foundation

/// Reads, once, the newest stored message of every subject under a filter of a stream: the
/// last-value cache on NATS (`LOCUS_STATE`) and the current values of a key-value bucket.
/// A short-lived consumer delivers the last message per subject; the consumer's own count of
/// what it has to deliver says when all have come, so an empty filter costs one round trip.
enum NATSLastValues {
    static func read(connection: NATSConnection, stream: String, filter: String,
                     _ each: (OpaquePointer) -> Void) throws(NATSError) {
        var subscription: OpaquePointer?
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var code = jsErrCode(0)
        let status: natsStatus = stream.withCString { name in
            options.Stream = name
            options.Config.DeliverPolicy = js_DeliverLastPerSubject
            options.Config.AckPolicy = js_AckNone
            return js_SubscribeSync(&subscription, connection.jetStream, filter, nil, &options, &code)
        }
        try check(status, "cannot read the last values of \(filter) from \(stream)")
        guard let subscription else { throw NATSError("cannot read the last values of \(filter) from \(stream)") }
        defer {
            natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        try check(natsSubscription_GetConsumerInfo(&info, subscription, nil, &code), "cannot read the last values of \(filter) from \(stream)")
        let expected = (info?.pointee.Delivered.Consumer ?? 0) + (info?.pointee.NumPending ?? 0)
        jsConsumerInfo_Destroy(info)
        var read: UInt64 = 0
        while read < expected {
            var message: OpaquePointer?
            let next = natsSubscription_NextMsg(&message, subscription, 5000)
            guard next == NATS_OK, let message else {
                throw NATSError("reading the last values of \(filter) from \(stream): \(NATSConnection.text(next)) after \(read) of \(expected)")
            }
            read += 1
            each(message)
            natsMsg_Destroy(message)
        }
    }
}
