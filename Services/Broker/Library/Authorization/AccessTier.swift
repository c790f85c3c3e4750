/// How much location a client may receive on the bus (docs/security.md).
public enum AccessTier: Sendable, Equatable {
    /// notDetermined, denied, restricted: no `location.*`, `visit.*`, `region.event.*`.
    case none
    /// Authorized with reduced accuracy: `location.approx.*` only.
    case reduced
    /// Authorized with full accuracy (or a temporary full grant), and trusted services.
    case full
}
