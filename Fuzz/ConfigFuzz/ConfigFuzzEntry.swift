import Foundation

// libFuzzer entry for config loading: compiled with Shared/LocusBus/CommandLineOptions.swift
// (see ../build-target.sh).

/// The input is written as a config file and loaded with `CommandLineSpec.loadConfig`,
/// then merged by `parse` with a service's option set. Promises: any bytes give a config
/// or a `ConfigError`; any loaded config gives options or a `UsageError`; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func configFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = ConfigFuzzFixture.path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else {
        preconditionFailure("cannot write \(path)")
    }
    let config: [String: Any]
    do { config = try CommandLineSpec.loadConfig(path: path) } catch {
        precondition(!error.message.isEmpty, "config rejected without a reason")
        return 0
    }
    do {
        let options = try ConfigFuzzFixture.spec.parse(["--stdio"], environment: [:], config: config)
        precondition(options.flag("--stdio"), "the command line lost to the config")
        for option in ConfigFuzzFixture.spec.options where !option.repeatable {
            precondition(options.strings(option.name).count <= 1 || config[String(option.name.dropFirst(2))] is [Any],
                         "a single-valued option got several values")
        }
        _ = try? options.double("--health-interval")
        _ = try? options.int("--rate")
    } catch {
        precondition(!error.message.isEmpty, "options rejected without a reason")
    }
    return 0
}

/// A spec shaped like a service's (common options, a repeatable one, a flag), and a
/// per-process scratch file in /dev/shm when it exists so the loop stays in memory.
enum ConfigFuzzFixture {
    static let path: String = {
        let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = "\(directory)/locus-config-fuzz-\(getpid()).json"
        atexit { _ = unlink(ConfigFuzzFixture.path) }
        return path
    }()

    static let spec = CommandLineSpec(
        program: "locus-fuzz", summary: "config fuzzing", usage: "locus-fuzz [options]",
        options: [
            OptionSpec("--config", value: "FILE", help: "config file"),
            OptionSpec("--pub", value: "ENDPOINT", help: "publisher endpoint", environment: "LOCUS_PUB"),
            OptionSpec("--stdio", help: "text form on stdin and stdout"),
            OptionSpec("--health-interval", value: "SECONDS", help: "health period", default: "2"),
            OptionSpec("--rate", value: "N", help: "a whole number"),
            OptionSpec("--sink", value: "URL", help: "repeatable", repeatable: true),
            OptionSpec("--help", help: "help"),
        ])
}
