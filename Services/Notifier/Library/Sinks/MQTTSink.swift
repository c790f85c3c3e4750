import Foundation
public import LocusMQTT

/// Publishes region transitions as OwnTracks JSON to `owntracks/<user>/<device>/event`
/// with QoS 1 and waits for the broker's PUBACK before calling it delivered. The
/// connection (TLS and credentials from `MQTTSettings`) is kept between notifications and
/// rebuilt after any error; a broker that refuses the credentials is retried like one
/// that is down, with the broker's reason in the error.
public final class MQTTSink: NotificationSink {
    public let name: String
    public let user: String
    private let client: MQTTClient

    public init(name: String = "mqtt", settings: MQTTSettings, user: String = "locus") {
        self.name = name
        self.user = user
        client = MQTTClient(settings: settings)
    }

    public var settings: MQTTSettings { client.settings }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        guard let transition = OwnTracksTransition(record, user: user) else { return .skipped }
        do throws(MQTTError) {
            try client.connect()
            try client.publish(topic: transition.topic, payload: Array(transition.json()))
            return .delivered
        } catch {
            client.disconnect()
            return .retry(error.message)
        }
    }
}
