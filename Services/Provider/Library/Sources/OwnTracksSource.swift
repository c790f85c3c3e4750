import Foundation
public import LocusMQTT

/// Phones running OwnTracks in MQTT mode: subscribes to `owntracks/+/+` (or `topics`) on a
/// broker, with the broker's username/password and TLS, and publishes each `_type: location`
/// message as a fix of the device its topic names (`OwnTracksReport`, `PhoneMapping`).
/// The broker authenticates the phones (its password file and ACL); `allowed` narrows the
/// devices further here. Reconnects with `Backoff` when the broker goes away.
public struct OwnTracksSource: PositionSource {
    public var settings: MQTTSettings
    public var topics: [String]
    public var naming: OwnTracksReport.DeviceNaming
    public var mapping: PhoneMapping
    public var allowed: Set<String>?
    public var maximumDevices: Int
    public let plugin = "owntracks"
    public var namesItsDevices: Bool { true }

    public init(settings: MQTTSettings, topics: [String] = ["owntracks/+/+"], naming: OwnTracksReport.DeviceNaming = .device,
                mapping: PhoneMapping = PhoneMapping(), allowed: Set<String>? = nil, maximumDevices: Int = 1000) {
        self.settings = settings
        self.topics = topics
        self.naming = naming
        self.mapping = mapping
        self.allowed = allowed
        self.maximumDevices = maximumDevices
    }

    public func run(_ context: SourceContext) {
        let intake = PhoneIntake(plugin: plugin, mapping: mapping, allowed: allowed, maximumDevices: maximumDevices, context: context)
        let client = MQTTClient(settings: settings)
        var backoff = Backoff()
        while !context.stop.isRaised {
            do throws(MQTTError) {
                try client.connect()
                for topic in topics { try client.subscribe(topic, qos: 1) }
                backoff.reset()
                context.status.set(.waiting, note: "subscribed to \(topics.joined(separator: " ")) at \(settings.address)")
                while !context.stop.isRaised {
                    for message in try client.poll(timeoutMilliseconds: 200) { handle(message, intake: intake) }
                }
            } catch {
                client.disconnect()
                context.status.set(.disconnected, note: error.message)
                context.problem(code: "sourceUnavailable", "\(error.message); retrying")
                context.stop.sleep(seconds: backoff.nextDelay())
            }
        }
        client.disconnect()
        context.finish()
    }

    private func handle(_ message: MQTTMessage, intake: PhoneIntake) {
        intake.received()
        do throws(PhoneRefusal) {
            switch try OwnTracksReport.read(topic: message.topic, payload: message.payload, naming: naming,
                                            now: Date().timeIntervalSince1970) {
            case .fix(let fix): intake.accept(fix)
            case .ignored(let type): intake.ignore(type)
            }
        } catch {
            intake.refuse(error)
        }
    }
}
