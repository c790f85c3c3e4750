import CMosquitto
import Foundation

/// One MQTT connection through libmosquitto, driven by its owner's thread: `connect` waits
/// for the broker's CONNACK (so a refused password is an error here, not a silent drop),
/// `publish` waits for the PUBACK of a QoS 1 message, `subscribe` for the SUBACK, and
/// `poll` runs the network loop once and returns what arrived. Every failure is an
/// `MQTTError` that says what the broker or TLS said; after one, `disconnect` and start over.
///
/// Not thread-safe: one thread owns a client (libmosquitto calls the callbacks below from
/// inside `mosquitto_loop`, on that thread).
public final class MQTTClient {
    public let settings: MQTTSettings
    private var handle: OpaquePointer?
    private let events = Events()

    /// What libmosquitto's callbacks reported, read by the owning thread after each loop.
    final class Events {
        var connack: Int32?
        var acknowledged: Set<Int32> = []
        var granted: [Int32: [Int32]] = [:]
        var messages: [MQTTMessage] = []
        var lost = false
        var errors: [String] = []

        func reset() {
            connack = nil
            acknowledged.removeAll()
            granted.removeAll()
            messages.removeAll()
            lost = false
            errors.removeAll()
        }
    }

    private static let libraryReady: Bool = { mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue) }()

    public init(settings: MQTTSettings) {
        self.settings = settings
    }

    deinit { disconnect() }

    public var isConnected: Bool { handle != nil }

    /// Connects (TCP, then TLS when configured), sends CONNECT with the credentials and waits
    /// for CONNACK. Does nothing when already connected.
    public func connect() throws(MQTTError) {
        guard handle == nil else { return }
        guard Self.libraryReady else { throw MQTTError("libmosquitto failed to initialise") }
        events.reset()
        let context = Unmanaged.passUnretained(events).toOpaque()
        guard let created = mosquitto_new(settings.clientID, settings.cleanSession, context) else {
            throw MQTTError("cannot create an MQTT client: \(String(cString: strerror(errno)))")
        }
        install(created)
        do throws(MQTTError) {
            try configure(created)
            let status = mosquitto_connect(created, settings.host, settings.port, settings.keepAliveSeconds)
            guard status == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
                throw MQTTError("cannot connect to MQTT broker \(settings.address): \(describe(status))\(errorDetail())")
            }
            handle = created
            let deadline = Date().timeIntervalSince1970 + settings.timeoutSeconds
            while events.connack == nil {
                guard Date().timeIntervalSince1970 < deadline else { throw MQTTError("no CONNACK from \(settings.address) in time") }
                do { try loop(100, "connect") } catch {
                    // A refusing CONNACK also ends the loop with an error; the broker's reason is the news.
                    if events.connack == nil || events.connack == 0 { throw error }
                }
            }
            if let code = events.connack, code != 0 {
                throw MQTTError("MQTT broker \(settings.address) refused the connection: \(String(cString: mosquitto_connack_string(code)))")
            }
        } catch {
            if handle == nil { mosquitto_destroy(created) } else { disconnect() }
            throw error
        }
    }

    /// Publishes one message with QoS 1 and returns once the broker has acknowledged it.
    public func publish(topic: String, payload: [UInt8], retain: Bool = false) throws(MQTTError) {
        let client = try connected()
        var mid: Int32 = 0
        let status = payload.withUnsafeBytes { mosquitto_publish(client, &mid, topic, Int32($0.count), $0.baseAddress, 1, retain) }
        try check(status, "publish")
        let deadline = Date().timeIntervalSince1970 + settings.timeoutSeconds
        while !events.acknowledged.contains(mid) {
            guard Date().timeIntervalSince1970 < deadline else { throw MQTTError("no PUBACK from \(settings.address) in time") }
            try loop(100, "publish")
        }
        events.acknowledged.remove(mid)
    }

    /// Subscribes to a topic filter and waits for the SUBACK; a refused filter is an error.
    public func subscribe(_ filter: String, qos: Int32 = 1) throws(MQTTError) {
        let client = try connected()
        var mid: Int32 = 0
        try check(mosquitto_subscribe(client, &mid, filter, qos), "subscribe")
        let deadline = Date().timeIntervalSince1970 + settings.timeoutSeconds
        while events.granted[mid] == nil {
            guard Date().timeIntervalSince1970 < deadline else { throw MQTTError("no SUBACK from \(settings.address) in time") }
            try loop(100, "subscribe")
        }
        if let granted = events.granted.removeValue(forKey: mid), granted.contains(where: { $0 > 2 }) {
            throw MQTTError("MQTT broker \(settings.address) refused the subscription to \(filter) (not authorised?)")
        }
    }

    /// Runs the network loop for up to `timeoutMilliseconds` and returns the messages received.
    public func poll(timeoutMilliseconds: Int32) throws(MQTTError) -> [MQTTMessage] {
        _ = try connected()
        try loop(timeoutMilliseconds, "receive")
        defer { events.messages.removeAll(keepingCapacity: true) }
        return events.messages
    }

    /// Closes the connection (if any); the next call connects again.
    public func disconnect() {
        guard let client = handle else { return }
        handle = nil
        mosquitto_disconnect(client)
        mosquitto_destroy(client)
    }

    // MARK: internals

    private func connected() throws(MQTTError) -> OpaquePointer {
        guard let handle else { throw MQTTError("not connected to \(settings.address)") }
        return handle
    }

    private func loop(_ milliseconds: Int32, _ what: String) throws(MQTTError) {
        let client = try connected()
        let status = mosquitto_loop(client, milliseconds, 1)
        if status != Int32(MOSQ_ERR_SUCCESS.rawValue) || events.lost {
            let reason = status != Int32(MOSQ_ERR_SUCCESS.rawValue) ? describe(status) : "the broker closed the connection"
            throw MQTTError("MQTT \(what) with \(settings.address) failed: \(reason)\(errorDetail())")
        }
    }

    private func configure(_ client: OpaquePointer) throws(MQTTError) {
        if let username = settings.username {
            try check(mosquitto_username_pw_set(client, username, settings.password), "credentials")
        }
        if let caFile = settings.caFile {
            // A key with a passphrase is refused at once instead of OpenSSL prompting on the terminal.
            let status = mosquitto_tls_set(client, caFile, nil, settings.certificateFile, settings.keyFile) { _, _, _, _ in 0 }
            try check(status, "TLS setup (CA \(caFile)\(settings.certificateFile.map { ", certificate \($0)" } ?? ""))")
        }
    }

    /// Points libmosquitto's callbacks at `events`.
    private func install(_ client: OpaquePointer) {
        mosquitto_connect_callback_set(client) { _, context, code in
            guard let context else { return }
            Unmanaged<Events>.fromOpaque(context).takeUnretainedValue().connack = code
        }
        mosquitto_disconnect_callback_set(client) { _, context, _ in
            guard let context else { return }
            Unmanaged<Events>.fromOpaque(context).takeUnretainedValue().lost = true
        }
        mosquitto_publish_callback_set(client) { _, context, mid in
            guard let context else { return }
            Unmanaged<Events>.fromOpaque(context).takeUnretainedValue().acknowledged.insert(mid)
        }
        mosquitto_subscribe_callback_set(client) { _, context, mid, count, granted in
            guard let context, let granted else { return }
            Unmanaged<Events>.fromOpaque(context).takeUnretainedValue().granted[mid] = Array(UnsafeBufferPointer(start: granted, count: Int(count)))
        }
        mosquitto_message_callback_set(client) { _, context, message in
            guard let context, let message, let topic = message.pointee.topic else { return }
            let length = Int(message.pointee.payloadlen)
            let payload = length > 0 && message.pointee.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: length)) : []
            Unmanaged<Events>.fromOpaque(context).takeUnretainedValue().messages.append(
                MQTTMessage(topic: String(cString: topic), payload: payload, retained: message.pointee.retain))
        }
        mosquitto_log_callback_set(client) { _, context, level, text in
            guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            let events = Unmanaged<Events>.fromOpaque(context).takeUnretainedValue()
            events.errors.append(String(cString: text))
            if events.errors.count > 4 { events.errors.removeFirst() }
        }
    }

    private func check(_ status: Int32, _ what: String) throws(MQTTError) {
        guard status == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw MQTTError("MQTT \(what) with \(settings.address) failed: \(describe(status))\(errorDetail())")
        }
    }

    private func describe(_ status: Int32) -> String {
        if status == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(status))
    }

    /// What libmosquitto logged as errors during the call (OpenSSL's reason for a failed handshake).
    private func errorDetail() -> String {
        defer { events.errors.removeAll() }
        return events.errors.isEmpty ? "" : " (" + events.errors.joined(separator: "; ") + ")"
    }
}

/// One message received on a subscription.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// The broker's stored last message for the topic, sent on subscribing.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// An MQTT failure, for a person: what was attempted, with which broker, and why.
public struct MQTTError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
