import LocusGpsd
import LocusProtocol

/// A fused fix as locus-fusion publishes it.
func fusedFix(_ device: String = "car", lat: Double = 31.2304, lon: Double = 121.4737, hacc: Double = 5,
              alt: Double? = 12.5, vacc: Double? = 3, speed: Double? = 1.5, speedAcc: Double? = 0.2,
              course: Double? = 90, mode: String? = "3d") -> Location {
    Location(device: device, source: "fused", lat: lat, lon: lon, hacc: hacc, alt: alt, vacc: vacc, speed: speed,
             speedAcc: speedAcc, course: course, mode: mode, tier: "high")
}

/// 2026-05-14T09:30:01.250Z
let fixTime = 1_778_751_001.25

extension GpsdHub {
    /// The text of every send to `client` in `actions`, joined.
    static func text(to client: Int, in actions: [HubAction]) -> String {
        actions.compactMap { action in
            if case let .send(id, text, _) = action, id == client { return text }
            return nil
        }.joined()
    }

    /// Lines sent to `client`, without their CR LF.
    static func lines(to client: Int, in actions: [HubAction]) -> [String] {
        text(to: client, in: actions).components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// Connects a gpsd client and returns what it received in reply to `request`.
    mutating func ask(_ client: Int, _ request: String, now: Double = fixTime) -> [String] {
        GpsdHub.lines(to: client, in: receive(client, Array(request.utf8), now: now))
    }
}
