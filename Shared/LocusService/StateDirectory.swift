import Foundation

/// Where a program keeps state on a single-user host when it is given no `--state`:
/// `$XDG_STATE_HOME/locus`, else `~/.local/state/locus` (the XDG base directory rule), else
/// `locus-state` in the runtime directory. One rule, so `locus up`, the bus and the notifier
/// agree on where things are and can say so in their logs.
public enum StateDirectory {
    public static func defaultPath() -> String { defaultPath(environment: ProcessInfo.processInfo.environment) }

    public static func defaultPath(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/locus" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/locus" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/locus-state" }
        return "/tmp/locus-state-\(getuid())"
    }

    /// Creates `path` (and its parents) readable by this user only; returns it.
    @discardableResult
    public static func create(_ path: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return path
    }
}
