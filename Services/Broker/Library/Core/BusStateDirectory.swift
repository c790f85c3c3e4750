public import Foundation
import LocusBus
import LocusService

/// Where a bus keeps `auth-state.json` when `--state` is not given, so authorization
/// survives a restart on every bus. The default bus of a user (ipc endpoints in the
/// runtime directory) uses the user's state directory (`$XDG_STATE_HOME/locus`, else
/// `~/.local/state/locus`: where `locus up` keeps the other services' state), which also
/// survives a reboot; any other ipc bus keeps its state beside its own endpoints, so two
/// buses never share grants; a bus without ipc endpoints keeps state in memory only.
public enum BusStateDirectory {
    /// The directory and a phrase saying where it came from (for the log), or nil for memory only.
    public static func resolve(explicit: String?, subEndpoints: [String],
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> (path: String?, origin: String) {
        if let explicit { return (explicit, "--state") }
        let ipcDirectories = subEndpoints.filter { $0.hasPrefix("ipc://") }
            .map { (String($0.dropFirst("ipc://".count)) as NSString).deletingLastPathComponent }
        let runtime = BusEndpoints.runtimeDirectory(environment: environment)
        if ipcDirectories.contains(runtime) {
            return (StateDirectory.defaultPath(environment: environment), "default for the user's bus; --state DIR to change")
        }
        if let directory = ipcDirectories.first, !directory.isEmpty {
            return (directory, "default: beside the ipc endpoints; --state DIR to keep it elsewhere")
        }
        return (nil, "no --state and no ipc endpoint")
    }
}
