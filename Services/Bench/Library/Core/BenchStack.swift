import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// Locus services as child processes on a private bus (ipc endpoints in a temporary
/// directory), for benchmarks that measure the real programs rather than their logic.
/// Children are stopped in reverse start order by `stop()`.
final class BenchStack {
    let directory: String
    let endpoints: BusEndpoints
    let binaries: String
    private(set) var children: [(name: String, process: Process)] = []
    private let environment: [String: String]

    init(tag: String, binaries: String = ServiceProgram.ownDirectory) {
        directory = NSTemporaryDirectory() + "locus-bench-\(tag)-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        endpoints = BusEndpoints(pub: "ipc://\(directory)/pub", sub: "ipc://\(directory)/sub")
        self.binaries = binaries
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = endpoints.pub
        environment["LOCUS_SUB"] = endpoints.sub
        self.environment = environment
    }

    deinit { stop() }

    /// Starts `program` (a name beside `locus`) with `arguments`; its stderr is kept in the
    /// stack's directory so a failing run can be diagnosed.
    @discardableResult
    func start(_ program: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaries + "/" + program)
        process.arguments = arguments
        process.environment = environment
        let logPath = directory + "/\(program)-\(children.count).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        children.append((program, process))
        return process
    }

    /// Stops every child, last started first, and removes the directory.
    func stop() {
        for child in children.reversed() where child.process.isRunning {
            child.process.terminate()
            child.process.waitUntilExit()
        }
        children = []
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Waits until a `health.<service>` message has arrived from each of `services`: each is
    /// then up, connected and subscribed.
    func waitForHealth(of services: Set<String>, subscriber: BusSubscriber, timeoutSeconds: Double) throws -> Bool {
        var missing = services
        var poller = Poller()
        poller.add(subscriber.socket)
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        while !missing.isEmpty, Date().timeIntervalSince1970 < deadline {
            _ = try poller.poll(timeoutMilliseconds: 100)
            while case .message(_, let message, _)? = try subscriber.receive(dontWait: true) {
                if case .health(let health) = message.body { missing.remove(health.service) }
            }
        }
        return missing.isEmpty
    }
}

/// A bench's own connection to a running stack: a subscriber and a publisher (source
/// `provider/bench`), handed out once both are connected and the named services have
/// reported health. `close()` when done.
struct BenchClient {
    let subscriber: BusSubscriber
    let publisher: BusPublisher

    init(stack: BenchStack, context: ZMQContext, prefixes: [String], healthOf services: Set<String>) throws {
        subscriber = try BusSubscriber(context: context, endpoint: stack.endpoints.sub, prefixes: [Topic.health("")] + prefixes)
        publisher = try BusPublisher(context: context, endpoint: stack.endpoints.pub, source: "provider/bench")
        guard try publisher.waitUntilConnected(timeoutSeconds: 10),
              try stack.waitForHealth(of: services, subscriber: subscriber, timeoutSeconds: 15) else {
            close()
            throw BenchFailure("the services did not report health within 15 s")
        }
    }

    func close() {
        subscriber.socket.close()
        publisher.socket.close()
    }
}

/// A benchmark step that could not run; `bench all` reports it and goes on.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
