import Foundation

/// A desktop notification through org.freedesktop.Notifications on the session bus,
/// called with `gdbus` so the notifier needs no D-Bus library. No session bus or no
/// notification server is a retry: the user may log in later.
public final class DesktopSink: NotificationSink {
    public let name: String
    public let appName: String
    public let expireMilliseconds: Int

    public init(name: String = "desktop", appName: String = "Locus", expireMilliseconds: Int = -1) {
        self.name = name
        self.appName = appName
        self.expireMilliseconds = expireMilliseconds
    }

    /// The `gdbus call` arguments for Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout).
    public func arguments(for record: NotificationRecord) -> [String] {
        ["call", "--session", "--timeout", "10",
         "--dest", "org.freedesktop.Notifications",
         "--object-path", "/org/freedesktop/Notifications",
         "--method", "org.freedesktop.Notifications.Notify",
         gvariantString(appName), "uint32 0", gvariantString(""), gvariantString(record.title), gvariantString(record.body),
         "@as []", "@a{sv} {}", "int32 \(expireMilliseconds)"]
    }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = arguments(for: record)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            return .retry("cannot run gdbus: \(error.localizedDescription)")
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationReason == .exit && process.terminationStatus == 0 { return .delivered }
        return .retry("Notify failed: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    /// A GVariant text literal: single-quoted with backslash escapes, so any title is safe.
    func gvariantString(_ text: String) -> String {
        var quoted = "'"
        for character in text {
            switch character {
            case "'": quoted += "\\'"
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            default: quoted.append(character)
            }
        }
        return quoted + "'"
    }
}
