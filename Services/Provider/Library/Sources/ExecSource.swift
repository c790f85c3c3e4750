import Foundation
import LocusProtocol
import LocusService

/// Runs a command and reads its stdout, so any program is a provider plugin: either as
/// NMEA 0183 (decoded like a serial receiver) or as text-form messages (docs/protocol.md):
/// `location` bodies become this device's fixes (and pass the control policy); other
/// messages are published as they are. The command's exit ends the source.
public struct ExecSource: PositionSource {
    public enum Format: String, Sendable, CaseIterable {
        case nmea, text
    }

    public var command: String
    public var format: Format
    public var sourceName: String
    public var date: NMEACivilDate?
    public let plugin = "exec"

    public init(command: String, format: Format, sourceName: String = "gnss", date: NMEACivilDate? = nil) {
        self.command = command
        self.format = format
        self.sourceName = sourceName
        self.date = date
    }

    public func run(_ context: SourceContext) {
        defer { context.finish() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            context.problem(code: "sourceFailed", "cannot run '\(command)': \(error.localizedDescription)")
            return
        }
        let stream = ByteStream(fd: pipe.fileHandleForReading.fileDescriptor, name: "exec", ownsDescriptor: false)
        switch format {
        case .nmea:
            var reader = NMEAStreamReader(context: context, sourceName: sourceName, date: date,
                                          pacer: ReplayPacer(asFastAsPossible: true))
            _ = reader.drain(stream)
            reader.finish()
        case .text:
            readText(stream, context: context)
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        if process.terminationReason == .exit, process.terminationStatus != 0 {
            context.problem(code: "sourceFailed", "'\(command)' exited with status \(process.terminationStatus)")
        }
    }

    private func readText(_ stream: ByteStream, context: SourceContext) {
        var lines = LineSplitter()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var reading = true
        while reading, !context.stop.isRaised {
            var batch: [String] = []
            switch buffer.withUnsafeMutableBytes({ stream.read(into: $0, timeoutMilliseconds: 200) }) {
            case .timeout: continue
            case .end, .failed:
                batch = lines.finish().map { [$0] } ?? []
                reading = false
            case .data(let count): batch = lines.feed(buffer[0..<count])
            }
            for line in batch { Self.handleTextLine(line, context: context) }
        }
    }

    /// One text-form line from the command.
    static func handleTextLine(_ line: String, context: SourceContext) {
        if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { return }
        do {
            let parsed = try TextForm.parse(Substring(line))
            let message = try MessageCodec.decode(parsed.body)
            if case .location(let location) = message.body {
                context.emit(location, t: message.envelope.t)
            } else {
                context.publish(Outbound(topic: parsed.topic, body: message.body, t: message.envelope.t))
            }
        } catch {
            context.problem(code: error.code.rawValue, "exec output rejected: \(error.message)")
        }
    }
}
