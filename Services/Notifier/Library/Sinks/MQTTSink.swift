import CMosquitto
import Foundation

/// Publishes region transitions as OwnTracks JSON to `owntracks/<user>/<device>/event`
/// with QoS 1 and waits for the broker's PUBACK before calling it delivered. The
/// connection is kept between notifications and rebuilt after any error.
public final class MQTTSink: NotificationSink {
    public let name: String
    public let host: String
    public let port: Int32
    public let user: String
    public let timeoutSeconds: Double
    private var client: OpaquePointer?
    private let acknowledgements = Acknowledgements()

    /// PUBACKs seen by the callback; only touched on the sink's worker thread.
    final class Acknowledgements {
        var mids: Set<Int32> = []
    }

    private static let libraryReady: Bool = { mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue) }()

    public init(name: String = "mqtt", host: String, port: Int32, user: String = "locus", timeoutSeconds: Double = 10) {
        self.name = name
        self.host = host
        self.port = port
        self.user = user
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { disconnect() }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        guard let transition = OwnTracksTransition(record, user: user) else { return .skipped }
        guard Self.libraryReady else { return .failed("libmosquitto failed to initialise") }
        do throws(HTTPError) {
            let connection = try connect()
            var mid: Int32 = 0
            let payload = Array(transition.json())
            let status = payload.withUnsafeBytes {
                mosquitto_publish(connection, &mid, transition.topic, Int32($0.count), $0.baseAddress, 1, false)
            }
            try check(status, "publish")
            let deadline = Date().timeIntervalSince1970 + timeoutSeconds
            while !acknowledgements.mids.contains(mid) {
                guard Date().timeIntervalSince1970 < deadline else { throw HTTPError(message: "no PUBACK from \(host):\(port) in time") }
                try check(mosquitto_loop(connection, 100, 1), "loop")
            }
            acknowledgements.mids.remove(mid)
            return .delivered
        } catch {
            disconnect()
            return .retry(error.message)
        }
    }

    private func connect() throws(HTTPError) -> OpaquePointer {
        if let client { return client }
        let context = Unmanaged.passUnretained(acknowledgements).toOpaque()
        guard let created = mosquitto_new("locus-notifier-\(getpid())-\(name)", true, context) else {
            throw HTTPError(message: "mosquitto_new failed")
        }
        mosquitto_publish_callback_set(created) { _, context, mid in
            guard let context else { return }
            Unmanaged<Acknowledgements>.fromOpaque(context).takeUnretainedValue().mids.insert(mid)
        }
        let status = mosquitto_connect(created, host, port, 30)
        guard status == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            mosquitto_destroy(created)
            throw HTTPError(message: "cannot connect to MQTT broker \(host):\(port): \(describe(status))")
        }
        client = created
        return created
    }

    private func disconnect() {
        guard let client else { return }
        mosquitto_disconnect(client)
        mosquitto_destroy(client)
        self.client = nil
        acknowledgements.mids.removeAll()
    }

    private func check(_ status: Int32, _ what: String) throws(HTTPError) {
        guard status == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw HTTPError(message: "MQTT \(what) to \(host):\(port) failed: \(describe(status))")
        }
    }

    private func describe(_ status: Int32) -> String {
        if status == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(status))
    }
}
