import LocusService
import LocusProtocol

/// `region.cmd`: adds and removals join the open command group and are answered once it
/// commits (`closeCommands`); lists and state requests are answered at once.
extension GeofenceLogic {
    mutating func add(_ command: RegionAdd, id: String, t: Double, into out: inout [Outbound]) {
        let owner = command.owner
        guard admitsCommand(of: owner, regionId: command.region.id, id: id, t: t, into: &out) else { return }
        do {
            let key = RegionKey(owner: owner, id: command.region.id)
            let previous = store.region(key)
            let added = try store.add(command.region, owner: owner, at: t)
            let answer = Outbound(topic: Topic.regionState(owner),
                                  body: .regionAdded(RegionAdded(owner: owner, region: command.region, re: id,
                                                                 effectiveRadius: added.monitored.effectiveRadiusMeters)),
                                  t: t)
            guard added.changed else {
                counters.regionsAdded += 1
                out.append(answer)  // the stored region is this one already
                return
            }
            let before = pending
            pending.upsertRegion(PersistedRegion(owner: owner, region: command.region, generation: added.monitored.generation))
            let failure = RegionFailed(owner: owner, regionId: command.region.id, code: .storage, message: "region not saved", re: id)
            let undo: CommandGroup.Undo = previous.map { .restore($0) } ?? .remove(key)
            commands.append(.init(undo: undo, answer: answer, failure: failure, t: t), pendingBefore: before)
        } catch {
            fail(owner: owner, regionId: command.region.id, error, re: id, t: t, into: &out)
        }
    }

    mutating func remove(_ command: RegionRemove, id: String, t: Double) {
        let key = RegionKey(owner: command.owner, id: command.regionId)
        // Removing an absent region succeeds too, so a client can retry safely.
        let answer = Outbound(topic: Topic.regionState(command.owner),
                              body: .regionRemoved(RegionRemoved(owner: command.owner, regionId: command.regionId, re: id)), t: t)
        guard let removed = store.remove(key) else {
            unconfirmed.append(answer)
            return
        }
        let before = pending
        pending.deleteRegion(key)
        // Taken back, the region returns to the slot it had, so its devices' tracks stay valid.
        let failure = RegionFailed(owner: command.owner, regionId: command.regionId, code: .storage, message: "removal not saved", re: id)
        commands.append(.init(undo: .restore(removed), answer: answer, failure: failure, t: t), pendingBefore: before)
    }

    mutating func list(_ command: RegionListRequest, id: String, t: Double, into out: inout [Outbound]) {
        let regions = store.regions(of: command.owner).map(\.region)
        out.append(Outbound(topic: Topic.regionState(command.owner),
                            body: .regionList(RegionListReply(owner: command.owner, regions: regions, re: id)), t: t))
    }

    /// Answers with one `state` event per (region, device) that has a known last fix,
    /// as Core Location's `requestState(for:)` does.
    mutating func requestState(_ command: RegionRequestState, id: String, t: Double, into out: inout [Outbound]) {
        let owner = command.owner
        guard admitsCommand(of: owner, regionId: command.regionId ?? "*", id: id, t: t, into: &out) else { return }
        let regions = command.regionId.map { store.region(RegionKey(owner: owner, id: $0)).map { [$0] } ?? [] } ?? store.regions(of: owner)
        let deviceNames = command.device.map { [$0] } ?? deviceNumbers.keys.sorted()
        for region in regions {
            for device in deviceNames where region.watches(device) {
                guard let tracker = tracker(for: device), let fix = tracker.lastFix else { continue }
                let event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: .state,
                                        state: tracker.state(for: region), cause: .requested, location: fix, re: id)
                out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: t))
            }
        }
    }

    /// An owner not authorized to monitor is answered `region.failed` (`notAuthorized`).
    private mutating func admitsCommand(of owner: String, regionId: String, id: String, t: Double, into out: inout [Outbound]) -> Bool {
        guard gate.allowsMonitoring(owner) else {
            fail(owner: owner, regionId: regionId, RegionRejection(.notAuthorized, gate.refusal(owner)), re: id, t: t, into: &out)
            return false
        }
        return true
    }

    private mutating func fail(owner: String, regionId: String, _ rejection: RegionRejection, re: String, t: Double,
                               into out: inout [Outbound]) {
        counters.regionsFailed += 1
        out.append(Outbound(topic: Topic.regionState(owner),
                            body: .regionFailed(RegionFailed(owner: owner, regionId: regionId, code: rejection.code,
                                                             message: rejection.message, re: re)),
                            t: t))
    }
}
