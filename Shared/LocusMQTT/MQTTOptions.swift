import Foundation
public import LocusService

/// The command-line options every program that speaks MQTT takes, with the same names in
/// each (`locus-notifier`'s MQTT sink, `locus-provider owntracks`), and their checks. The
/// password is read from a file so it never shows in `ps` or a shell history.
public enum MQTTOptions {
    public static let options: [OptionSpec] = [
        OptionSpec("--mqtt-username", value: "USER", help: "MQTT: username sent to the broker"),
        OptionSpec("--mqtt-password-file", value: "FILE", help: "MQTT: file whose first line is the password (needs --mqtt-username)"),
        OptionSpec("--mqtt-ca-file", value: "FILE", help: "MQTT: connect with TLS, trusting this CA (PEM) for the broker's certificate"),
        OptionSpec("--mqtt-cert", value: "FILE", help: "MQTT: client certificate (PEM) for TLS (needs --mqtt-key and --mqtt-ca-file)"),
        OptionSpec("--mqtt-key", value: "FILE", help: "MQTT: private key (PEM, unencrypted) of --mqtt-cert"),
    ]

    /// Fills the credentials of `settings` from parsed options; a missing or unreadable file,
    /// or an option without its partner, is a usage error naming it.
    public static func apply(_ options: ParsedOptions, to settings: inout MQTTSettings) throws(UsageError) {
        settings.username = options.string("--mqtt-username")
        if let path = options.string("--mqtt-password-file") {
            guard settings.username != nil else { throw UsageError("--mqtt-password-file needs --mqtt-username") }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("--mqtt-password-file: cannot read \(path)")
            }
            let password = text.prefix { $0 != "\n" && $0 != "\r" }
            guard !password.isEmpty else { throw UsageError("--mqtt-password-file: \(path) has an empty first line") }
            settings.password = String(password)
        }
        for name in ["--mqtt-ca-file", "--mqtt-cert", "--mqtt-key"] {
            if let path = options.string(name), !FileManager.default.isReadableFile(atPath: path) {
                throw UsageError("\(name): cannot read \(path)")
            }
        }
        settings.caFile = options.string("--mqtt-ca-file")
        settings.certificateFile = options.string("--mqtt-cert")
        settings.keyFile = options.string("--mqtt-key")
        guard (settings.certificateFile == nil) == (settings.keyFile == nil) else {
            throw UsageError("--mqtt-cert and --mqtt-key go together")
        }
        if settings.certificateFile != nil && settings.caFile == nil {
            throw UsageError("--mqtt-cert needs --mqtt-ca-file (a client certificate is sent only over TLS)")
        }
    }
}
