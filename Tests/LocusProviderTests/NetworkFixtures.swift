import Foundation

/// The scan-tool outputs in `Fixtures/network/`, written from each tool's documented output
/// format (iw's scan.c, nmcli's terse mode, mmcli's human, `-K` and `-J` output).
enum NetworkFixtures {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/network")
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
