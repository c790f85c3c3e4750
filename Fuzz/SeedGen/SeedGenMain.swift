import Foundation

/// Writes the generated seed corpus: one valid body per message type, region shapes of
/// every kind, and text-form lines, each checked by `validate()` before it is written.
/// Usage: seedgen-fuzz DIRECTORY
@main
enum SeedGenMain {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: seedgen-fuzz DIRECTORY\n".utf8))
            exit(64)
        }
        let directory = URL(fileURLWithPath: CommandLine.arguments[1])
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written = 0
        for (index, body) in SeedMessages.bodies.enumerated() {
            let message = Message(body: body, id: "seed-\(index)", t: 1_715_000_000.25 + Double(index), src: "fuzz/seed", seq: index)
            try message.validate()
            let bytes = MessageCodec.encode(message)
            try Data(bytes).write(to: directory.appendingPathComponent("body-\(index)-\(body.type).json"))
            let line = TextForm.line(topic: SeedMessages.topic(for: body), body: bytes) + "\n"
            try Data(line.utf8).write(to: directory.appendingPathComponent("line-\(index)-\(body.type).txt"))
            written += 2
        }
        print("\(written) seeds in \(directory.path)")
    }
}
