import LocusService
import XCTest

final class CommandLineSpecTests: XCTestCase {
    let spec = CommandLineSpec(program: "locus-test", summary: "test", usage: "locus-test [options]",
                               options: ServiceProgram.commonOptions + [
                                   OptionSpec("--sink", value: "SINK", help: "a sink", repeatable: true),
                                   OptionSpec("--radius", value: "M", help: "radius", default: "100"),
                               ])

    func testFlagsOverrideEnvironmentWhichOverridesConfigWhichOverridesDefaults() throws {
        let config: [String: Any] = ["pub": "ipc:///from-config", "sub": "ipc:///sub-config", "radius": 250, "stdio": true]
        let environment = ["LOCUS_PUB": "ipc:///from-env"]
        let parsed = try spec.parse(["--pub", "tcp://host:1"], environment: environment, config: config)
        XCTAssertEqual(parsed.string("--pub"), "tcp://host:1")
        XCTAssertEqual(parsed.string("--sub"), "ipc:///sub-config")
        XCTAssertEqual(try parsed.double("--radius"), 250)
        XCTAssertTrue(parsed.flag("--stdio"))
        let envOnly = try spec.parse([], environment: environment, config: config)
        XCTAssertEqual(envOnly.string("--pub"), "ipc:///from-env")
        XCTAssertEqual(try spec.parse([], environment: [:]).string("--radius"), "100")
    }

    func testBadArgumentsAreUsageErrorsWithAClearMessage() {
        XCTAssertThrowsError(try spec.parse(["--nope"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("unknown option '--nope'"))
        }
        XCTAssertThrowsError(try spec.parse(["--pub"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("--pub needs a value"))
        }
        XCTAssertThrowsError(try spec.parse(["--stdio=yes"], environment: [:]))
        XCTAssertThrowsError(try spec.parse(["-x"], environment: [:]))
        XCTAssertThrowsError(try spec.parse(["--radius", "wide"], environment: [:]).double("--radius"))
    }

    func testRepeatableAndInlineValuesAndPositionals() throws {
        let parsed = try spec.parse(["--sink", "stdout", "--sink=jsonl:/tmp/x", "nmea", "--", "--literal"], environment: [:])
        XCTAssertEqual(parsed.strings("--sink"), ["stdout", "jsonl:/tmp/x"])
        XCTAssertEqual(parsed.positionals, ["nmea", "--literal"])
    }

    func testHelpListsEveryOption() {
        for option in spec.options { XCTAssertTrue(spec.helpText.contains(option.name), option.name) }
        XCTAssertTrue(spec.helpText.contains("[env LOCUS_PUB]"))
    }

    func testConfigFileErrorsAreClear() throws {
        let path = NSTemporaryDirectory() + "locus-config-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path)) { error in
            XCTAssertTrue("\(error)".contains("not valid JSON"))
        }
        try Data("[1,2]".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path)) { error in
            XCTAssertTrue("\(error)".contains("JSON object"))
        }
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path + ".missing"))
    }

    func testUnknownConfigKeysAreRefusedNotIgnored() {
        XCTAssertThrowsError(try spec.parse([], environment: [:], config: ["raduis": 200])) { error in
            XCTAssertTrue("\(error)".contains("config key 'raduis' is not an option"))
        }
    }
}
