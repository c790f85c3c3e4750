import LocusProtocol
/// What the page's viewer may see, mirroring Core Location's full and reduced accuracy
/// authorization: a reduced viewer gets only the approximate stream, never the fused one.
public enum ClientAccuracy: String, Sendable, Equatable, CaseIterable {
    case full, reduced

    /// The location topic prefix this viewer is allowed to read.
    public var locationPrefix: String {
        switch self {
        case .full: return Topic.locationFusedPrefix
        case .reduced: return Topic.locationApproxPrefix
        }
    }

    /// Late fixes (history uploaded after newer fixes) for the track, nil for a reduced viewer:
    /// they are fine positions.
    public var latePrefix: String? {
        self == .full ? Topic.locationLatePrefix : nil
    }
}
