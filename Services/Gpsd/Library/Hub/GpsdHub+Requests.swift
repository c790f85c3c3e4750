/// The answer to each command, as gpsd 3.22 gives it (its `handle_request`): the same
/// objects, in the same order, with the same error wording.
extension GpsdHub {
    mutating func answer(_ request: GpsdRequest, policy: inout WatchPolicy, now: Double, problems: inout [HubAction]) -> String {
        switch request {
        case .version:
            return GpsdReplies.version(revision: configuration.revision).line
        case .devices:
            return devicesLine
        case .poll:
            return GpsdReplies.poll(table.records.filter { policy.covers($0.path) }, now: now).line
        case .watch(nil):
            return devicesLine + policy.report.line
        case .watch(let object?):
            do {
                try policy.apply(object)
            } catch {
                return badRequest("Invalid WATCH: \(error.message)", now: now, problems: &problems) + devicesLine + policy.report.line
            }
            // As gpsd: the policy keeps the unknown path, and only the error is answered.
            if policy.enable, let path = policy.device, table.record(path: path) == nil {
                return badRequest("No such device as \(path)", now: now, problems: &problems)
            }
            return devicesLine + policy.report.line + (policy.enable ? latest(for: policy) : "")
        case .device(nil):
            return table.records.map { GpsdReplies.device($0, subtype: subtype).line }.joined()
        case .device(let object?):
            return deviceReply(object, now: now, problems: &problems)
        case let .invalidArgument(command, message):
            let error = badRequest("Invalid \(command): \(message)", now: now, problems: &problems)
            return command == "WATCH" ? error + devicesLine + policy.report.line : error
        case .unrecognized(let text):
            return badRequest("Unrecognized request '\(text)'", now: now, problems: &problems)
        }
    }

    private var devicesLine: String { GpsdReplies.devices(table.records, subtype: subtype).line }

    /// `?DEVICE={…}` selects a device to configure; Locus devices have no serial settings,
    /// so the answer is the device's DEVICE object (or gpsd's error for a bad selection).
    private mutating func deviceReply(_ object: FlatJSONObject, now: Double, problems: inout [HubAction]) -> String {
        if case .string(let path)? = object["path"], !path.isEmpty {
            guard let record = table.record(path: path) else {
                return badRequest("Can't open \(path).", now: now, problems: &problems)
            }
            return GpsdReplies.device(record, subtype: subtype).line
        }
        switch table.records.count {
        case 0: return badRequest("Can't perform DEVICE configuration, no devices attached.", now: now, problems: &problems)
        case 1: return GpsdReplies.device(table.records[0], subtype: subtype).line
        default: return badRequest("No path specified in DEVICE, but multiple devices are attached.", now: now, problems: &problems)
        }
    }

    /// What a new watcher receives at once: the last report of each watched device, like a
    /// late subscriber on the bus (gpsd itself waits for the device's next report).
    private func latest(for policy: WatchPolicy) -> String {
        var text = ""
        for record in table.records where policy.covers(record.path) {
            guard let fix = record.fix else { continue }
            if policy.wantsJSON {
                if let sky = freshSky(record, fix) { text += GpsdReports.sky(path: record.path, sky: sky).line }
                text += GpsdReports.tpv(path: record.path, fix: fix).line + GpsdReports.gst(path: record.path, fix: fix).line
            }
            if policy.wantsNMEA { text += nmea(record, fix) }
        }
        return text
    }

    private mutating func badRequest(_ message: String, now: Double, problems: inout [HubAction]) -> String {
        counters.badRequests += 1
        problems += problem("badRequest", "a client sent a bad request: \(message)", now: now)
        return GpsdReplies.error(message).line
    }
}
