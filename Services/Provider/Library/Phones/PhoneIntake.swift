import Foundation
import LocusProtocol

/// What both phone plugins do with a report once read: check the device is allowed (and not
/// one too many), map the fix (`PhoneMapping`), hand it to the logic, and count everything —
/// received, fixes, refusals by code, ignored messages by kind, each phone's battery — in the
/// source's health counters. A refusal also goes to `error.provider`. Source thread only.
final class PhoneIntake {
    let mapping: PhoneMapping
    let allowed: Set<String>?
    let maximumDevices: Int
    /// The plugin, named in log lines and `error.provider` messages.
    let plugin: String
    private let context: SourceContext
    private var counters: [String: Int] = [:]
    private var devices: Set<String> = []

    init(plugin: String, mapping: PhoneMapping, allowed: Set<String>?, maximumDevices: Int, context: SourceContext) {
        self.plugin = plugin
        self.mapping = mapping
        self.allowed = allowed
        self.maximumDevices = maximumDevices
        self.context = context
    }

    /// Counts one report as received (before it is read).
    func received() {
        counters["received", default: 0] += 1
    }

    /// Checks that `device` may report; nil when it may.
    func admit(_ device: String) -> PhoneRefusal? {
        if let allowed, !allowed.contains(device) {
            return PhoneRefusal(.unknownDevice, "device \(device) is not among the allowed devices")
        }
        guard devices.contains(device) || devices.count < maximumDevices else {
            return PhoneRefusal(.unknownDevice, "device \(device) would be device \(devices.count + 1); at most \(maximumDevices) are served")
        }
        return nil
    }

    /// Publishes `fix` (after `admit`); the refusal when it cannot become a location.
    @discardableResult
    func accept(_ fix: PhoneFix) -> PhoneRefusal? {
        if let refusal = admit(fix.device) { return refuse(refusal) }
        let location: Location
        do { location = try mapping.location(fix) } catch { return refuse(error) }
        if devices.insert(fix.device).inserted { counters["devices"] = devices.count }
        if let battery = fix.battery { counters["battery." + fix.device] = battery }
        counters["fixes", default: 0] += 1
        publishCounters()
        context.emit(location, t: fix.t, as: fix.device)
        return nil
    }

    /// Records a report that was refused, on `error.provider` and in the counters; returns it.
    @discardableResult
    func refuse(_ refusal: PhoneRefusal) -> PhoneRefusal {
        counters["refused." + refusal.code.rawValue, default: 0] += 1
        publishCounters()
        context.problem(code: refusal.code.rawValue, "\(plugin) report refused: \(refusal.message)")
        return refusal
    }

    /// Records a report that is not a position (an OwnTracks `lwt`, a heartbeat without a position).
    func ignore(_ kind: String) {
        counters["ignored." + kind, default: 0] += 1
        publishCounters()
    }

    private func publishCounters() {
        context.status.setCounters(counters)
    }
}
