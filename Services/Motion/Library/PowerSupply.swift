import Foundation

/// Reads Linux's `/sys/class/power_supply` to tell whether the machine runs on a low battery,
/// as an iPhone's Low Power Mode does: on battery (no mains or USB supply online), discharging,
/// at or below `lowCapacityPercent`.
public struct PowerSupply: Sendable {
    public var root: String
    public var lowCapacityPercent: Int

    /// Where Linux lists its power supplies.
    public static let defaultRoot = "/sys/class/power_supply"

    public init(root: String = defaultRoot, lowCapacityPercent: Int = 20) {
        self.root = root
        self.lowCapacityPercent = lowCapacityPercent
    }

    /// True when low, false when not, nil when the directory or a battery is absent.
    public func isLowPower() -> Bool? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        var sawBattery = false
        var low = false
        for name in names.sorted() {
            let kind = read(name, "type")
            if kind == "Mains" || kind == "USB", read(name, "online") == "1" { return false }
            guard kind == "Battery" else { continue }
            sawBattery = true
            if read(name, "status") == "Discharging", let capacity = read(name, "capacity").flatMap({ Int($0) }),
               capacity <= lowCapacityPercent {
                low = true
            }
        }
        return sawBattery ? low : nil
    }

    private func read(_ supply: String, _ attribute: String) -> String? {
        guard let text = try? String(contentsOfFile: root + "/" + supply + "/" + attribute, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
