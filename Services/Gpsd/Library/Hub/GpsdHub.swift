/// gpsd's side of every connection, without the sockets: what each client asked for, the
/// devices and their last fixes, and what to send whom when a client speaks or a fix
/// arrives. The server thread owns it; everything here is plain values, so the protocol
/// is tested byte for byte without a network.
public struct GpsdHub: Sendable {
    public let configuration: GpsdConfiguration
    public private(set) var table: DeviceTable
    public internal(set) var counters = HubCounters()
    private var sessions: [Int: Session] = [:]
    private var lastProblem: [String: Double] = [:]

    struct Session {
        var kind: ClientKind
        var policy: WatchPolicy
        var scanner: RequestScanner
    }

    public init(configuration: GpsdConfiguration) {
        self.configuration = configuration
        table = DeviceTable(known: configuration.devices, maximumCount: configuration.maximumDevices)
    }

    var subtype: String { configuration.stream.rawValue }

    // MARK: Connections

    /// A new connection: a gpsd client gets VERSION at once, a NMEA stream the latest epoch.
    public mutating func connect(_ client: Int, kind: ClientKind) -> [HubAction] {
        let policy = kind == .nmeaStream ? WatchPolicy.nmeaStream : WatchPolicy()
        sessions[client] = Session(kind: kind, policy: policy, scanner: RequestScanner(maximumBytes: configuration.maximumRequestBytes))
        counters.clients = sessions.count
        switch kind {
        case .gpsd:
            return [.send(client: client, text: GpsdReplies.version(revision: configuration.revision).line, bounded: false)]
        case .nmeaStream:
            guard let record = table.records.first, let fix = record.fix else { return [] }
            return [.send(client: client, text: nmea(record, fix), bounded: false)]
        }
    }

    public mutating func disconnect(_ client: Int) {
        sessions[client] = nil
        counters.clients = sessions.count
    }

    /// Bytes from a client: the replies to every complete command, in order, as one write.
    public mutating func receive(_ client: Int, _ bytes: some Sequence<UInt8>, now: Double) -> [HubAction] {
        guard var session = sessions[client], session.kind == .gpsd else { return [] }  // a NMEA stream's input is ignored
        guard session.scanner.append(bytes) else {
            sessions[client] = nil
            counters.clients = sessions.count
            counters.oversizedRequests += 1
            let message = "request longer than \(configuration.maximumRequestBytes) bytes"
            return [.send(client: client, text: GpsdReplies.error(message).line, bounded: false),
                    .close(client: client, reason: message)] + problem("requestTooLong", "a client sent a \(message); dropped", now: now)
        }
        var reply = ""
        var actions: [HubAction] = []
        for request in session.scanner.takeRequests() {
            counters.requests += 1
            reply += answer(request, policy: &session.policy, now: now, problems: &actions)
        }
        sessions[client] = session
        if !reply.isEmpty { actions.insert(.send(client: client, text: reply, bounded: false), at: 0) }
        return actions
    }

    // MARK: Updates

    /// A fix or satellite report from the bus: stored, then fanned out to the watchers it concerns.
    public mutating func apply(_ update: DeviceUpdate, now: Double) -> [HubAction] {
        switch update {
        case let .fix(location, t):
            guard let (record, activated) = table.store(location, t: t, now: now), let fix = record.fix else {
                counters.fixesRefused += 1
                return []
            }
            counters.fixesServed += 1
            var actions: [HubAction] = []
            if activated {
                let notice = GpsdReplies.device(record, subtype: subtype).line
                actions += fanOut { $0.wantsJSON && $0.covers(record.path) ? notice : nil }
            }
            let reports = GpsdReports.tpv(path: record.path, fix: fix).line + GpsdReports.gst(path: record.path, fix: fix).line
            let sentences = nmea(record, fix)
            let isStreamDevice = table.records.first?.device == record.device
            actions += fanOut { policy in
                var text = ""
                if policy.wantsJSON && policy.covers(record.path) { text += reports }
                if policy.wantsNMEA && policy.covers(record.path) { text += sentences }
                return text.isEmpty ? nil : text
            } streams: { isStreamDevice ? sentences : nil }
            return actions
        case let .satellites(device, used, hdop, t):
            guard let record = table.store(SkyView(used: used, hdop: hdop, time: t), device: device), record.fix != nil,
                  let sky = record.sky else { return [] }
            let report = GpsdReports.sky(path: record.path, sky: sky).line
            return fanOut { $0.wantsJSON && $0.covers(record.path) ? report : nil }
        }
    }

    /// Sends what `text` returns for each gpsd client's policy (and `streams` to NMEA streams), counting what went out.
    private mutating func fanOut(_ text: (WatchPolicy) -> String?, streams: () -> String? = { nil }) -> [HubAction] {
        var actions: [HubAction] = []
        let streamText = streams()
        for (client, session) in sessions.sorted(by: { $0.key < $1.key }) {
            let output = session.kind == .gpsd ? text(session.policy) : streamText
            guard let output else { continue }
            count(output)
            actions.append(.send(client: client, text: output, bounded: true))
        }
        return actions
    }

    /// Counts reports by their first bytes (lines end in CR LF, one `Character` in Swift, so bytes it is).
    private mutating func count(_ output: String) {
        for line in output.utf8.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: #"{"class":"TPV""#.utf8) { counters.tpvSent += 1 }
            else if line.starts(with: #"{"class":"SKY""#.utf8) { counters.skySent += 1 }
            else if line.first == UInt8(ascii: "$") { counters.nmeaSent += 1 }
        }
    }

    /// The NMEA epoch of a record's fix, with satellites when they describe that fix.
    func nmea(_ record: DeviceTable.Record, _ fix: ServedFix) -> String {
        NMEASentences.epoch(fix: fix, sky: freshSky(record, fix)).joined()
    }

    func freshSky(_ record: DeviceTable.Record, _ fix: ServedFix) -> SkyView? {
        guard let sky = record.sky, abs(sky.time - fix.time) <= configuration.skyMaximumAgeSeconds else { return nil }
        return sky
    }

    /// One `error.gpsd` report per code per second; the rest are only counted.
    mutating func problem(_ code: String, _ message: String, now: Double) -> [HubAction] {
        if let last = lastProblem[code], now - last < 1 { return [] }
        lastProblem[code] = now
        return [.problem(code: code, message: message)]
    }
}
