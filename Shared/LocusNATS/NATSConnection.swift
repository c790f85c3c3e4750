import CNATS
import Foundation

/// One connection to a NATS cluster with its JetStream context (cnats does the socket work
/// on threads of its own; every call here is safe from any thread). It reconnects by itself
/// for ever, keeps what is published meanwhile in its reconnect buffer, and counts what
/// happened to it for `health.<service>`.
public final class NATSConnection: @unchecked Sendable {
    let connection: OpaquePointer
    let jetStream: OpaquePointer
    public let endpoint: NATSEndpoint
    private let events = NATSConnectionEvents()
    /// JetStream publishes the servers refused or lost, to send again (same `Nats-Msg-Id`).
    let failedPublishes = NATSFailedPublishes()

    /// Connects, or throws a clear error (refused credentials, no server reachable within
    /// `timeoutSeconds`). The caller retries with back-off.
    public init(endpoint: NATSEndpoint, name: String, credentials: NATSCredentials?, timeoutSeconds: Double = 2) throws(NATSError) {
        self.endpoint = endpoint
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "cannot create NATS options")
        defer { natsOptions_Destroy(options) }
        try withCStrings(endpoint.servers) { servers throws(NATSError) in
            try check(natsOptions_SetServers(options, servers, Int32(endpoint.servers.count)), "bad NATS servers \(endpoint)")
        }
        natsOptions_SetName(options, name)
        natsOptions_SetTimeout(options, Int64(timeoutSeconds * 1000))
        natsOptions_SetAllowReconnect(options, true)
        natsOptions_SetMaxReconnect(options, -1)
        natsOptions_SetReconnectWait(options, 250)
        natsOptions_SetReconnectBufSize(options, 256 * 1024 * 1024)
        natsOptions_SetMaxPendingMsgs(options, 1_000_000)
        switch credentials {
        case let .userPassword(user, password)?: natsOptions_SetUserInfo(options, user, password)
        case let .credentialsFile(path)?: natsOptions_SetUserCredentialsFromFiles(options, path, nil)
        case nil: break
        }
        // cnats may call these from its own threads even while the connection is being
        // destroyed, so the callbacks hold their own reference (a few bytes per connection).
        let context = Unmanaged.passRetained(events).toOpaque()
        natsOptions_SetDisconnectedCB(options, { _, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().count(\.disconnections)
        }, context)
        natsOptions_SetReconnectedCB(options, { _, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().count(\.reconnections)
        }, context)
        natsOptions_SetErrorHandler(options, { _, _, status, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().asyncError(status)
        }, context)
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, options)
        guard status == NATS_OK, let connection else {
            throw NATSError("cannot connect to NATS at \(endpoint): \(Self.text(status))")
        }
        self.connection = connection

        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5000
        jsOptions.PublishAsync.MaxPending = 65_536
        jsOptions.PublishAsync.StallWait = 1000
        jsOptions.PublishAsync.ErrHandlerClosure = Unmanaged.passRetained(failedPublishes).toOpaque()
        jsOptions.PublishAsync.ErrHandler = { _, failure, closure in
            guard let failure, let closure else { return }
            let failed = Unmanaged<NATSFailedPublishes>.fromOpaque(closure).takeUnretainedValue()
            // Taking the message keeps it for a re-send instead of cnats destroying it.
            if let message = failure.pointee.Msg {
                failed.add(message)
                failure.pointee.Msg = nil
            }
        }
        var jetStream: OpaquePointer?
        let jsStatus = natsConnection_JetStream(&jetStream, connection, &jsOptions)
        guard jsStatus == NATS_OK, let jetStream else {
            natsConnection_Destroy(connection)
            throw NATSError("cannot open JetStream on \(endpoint): \(Self.text(jsStatus))")
        }
        self.jetStream = jetStream
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Destroy(connection)
    }

    /// Whether the connection is up now.
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

    /// The servers this client knows (seeds and those the cluster told it about).
    public var knownServers: [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        guard natsConnection_GetServers(connection, &list, &count) == NATS_OK, let list else { return [] }
        defer {
            for index in 0..<Int(count) { free(list[index]) }
            free(list)
        }
        return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
    }

    /// Publishes plainly (not acknowledged); false when the reconnect buffer is full.
    @discardableResult
    public func publish(subject: String, body: [UInt8]) -> Bool {
        body.withUnsafeBytes { natsConnection_Publish(connection, subject, $0.baseAddress, Int32($0.count)) } == NATS_OK
    }

    /// Publishes to JetStream without waiting; `id` goes in `Nats-Msg-Id` so the stream drops a repeat.
    public func publishDurable(subject: String, body: [UInt8], id: String) throws(NATSError) {
        var message: OpaquePointer?
        let created = body.withUnsafeBytes { natsMsg_Create(&message, subject, nil, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
        try check(created, "cannot build a NATS message")
        natsMsgHeader_Set(message, "Nats-Msg-Id", id)
        try publishDurable(message: message)
    }

    /// Publishes to JetStream and waits for the stream's acknowledgement, sending again (same
    /// `Nats-Msg-Id`, so never stored twice) while the servers elect a leader or reconnect:
    /// events keep their order this way, which asynchronous re-sends could not promise. After
    /// `patienceSeconds` it leaves the message to the asynchronous re-send path instead.
    public func publishDurableInOrder(subject: String, body: [UInt8], id: String, patienceSeconds: Double = 30) {
        let deadline = Date().addingTimeInterval(patienceSeconds)
        var backOff: useconds_t = 50_000
        while true {
            var message: OpaquePointer?
            let created = body.withUnsafeBytes { natsMsg_Create(&message, subject, nil, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
            guard created == NATS_OK else { return }
            natsMsgHeader_Set(message, "Nats-Msg-Id", id)
            var options = jsPubOptions()
            jsPubOptions_Init(&options)
            options.MaxWait = 2000
            var ack: UnsafeMutablePointer<jsPubAck>?
            var code = jsErrCode(0)
            let status = js_PublishMsg(&ack, jetStream, message, &options, &code)
            jsPubAck_Destroy(ack)
            if status == NATS_OK {
                natsMsg_Destroy(message)
                return
            }
            events.count(\.resent)
            if Date() >= deadline {
                failedPublishes.add(message!)
                return
            }
            natsMsg_Destroy(message)
            usleep(backOff)
            backOff = min(backOff * 2, 1_000_000)
        }
    }

    /// Sends a built message to JetStream (it already carries its `Nats-Msg-Id`).
    func publishDurable(message: OpaquePointer?) throws(NATSError) {
        var message = message
        let status = js_PublishMsgAsync(jetStream, &message, nil)
        if status != NATS_OK {
            // Kept for a later re-send, never dropped.
            if let message { failedPublishes.add(message) }
            throw NATSError("JetStream publish failed: \(Self.text(status))")
        }
    }

    /// Waits until every JetStream publish is acknowledged; on time-out, takes the ones still
    /// waiting and sends them again (the stream drops any that had arrived, by id). False when
    /// some are still unconfirmed.
    public func confirmPublishes(timeoutSeconds: Double) -> Bool {
        var waitOptions = jsPubOptions()
        jsPubOptions_Init(&waitOptions)
        waitOptions.MaxWait = Int64(timeoutSeconds * 1000)
        let status = js_PublishAsyncComplete(jetStream, &waitOptions)
        resendFailed()
        if status == NATS_OK && failedPublishes.isEmpty { return true }
        var pending = natsMsgList()
        if js_PublishAsyncGetPendingList(&pending, jetStream) == NATS_OK, let messages = pending.Msgs {
            for index in 0..<Int(pending.Count) {
                guard let message = messages[index] else { continue }
                messages[index] = nil
                events.count(\.resent)
                try? publishDurable(message: message)
            }
            natsMsgList_Destroy(&pending)
        }
        return false
    }

    /// Sends again what the servers refused or lost.
    func resendFailed() {
        for message in failedPublishes.takeAll() {
            events.count(\.resent)
            try? publishDurable(message: message)
        }
    }

    /// Flushes plain publishes to the server (a round trip); false on time-out.
    public func flush(timeoutSeconds: Double) -> Bool {
        natsConnection_FlushTimeout(connection, Int64(timeoutSeconds * 1000)) == NATS_OK
    }

    public var counters: [String: Int] { events.snapshot() }

    /// The client library's words for a status, with its last error detail.
    static func text(_ status: natsStatus) -> String {
        var last = NATS_OK
        let detail = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        let name = String(cString: natsStatus_GetText(status))
        return detail.isEmpty || detail == name ? name : "\(name) (\(detail))"
    }
}

func check(_ status: natsStatus, _ what: @autoclosure () -> String) throws(NATSError) {
    guard status == NATS_OK else { throw NATSError("\(what()): \(NATSConnection.text(status))") }
}

/// Runs `body` with the strings as a C array of `const char *`.
func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) throws(NATSError) -> Result) throws(NATSError) -> Result {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers = copies.map { UnsafePointer<CChar>($0) }
    return try pointers.withUnsafeMutableBufferPointer { buffer throws(NATSError) in try body(buffer.baseAddress!) }
}
