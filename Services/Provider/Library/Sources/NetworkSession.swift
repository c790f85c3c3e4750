import Foundation

/// One run of a network source: its locator, its counters, and the loops that feed it.
final class NetworkSession {
    let context: SourceContext
    let locator: NetworkLocator
    var pacer: ReplayPacer
    let mailbox: FusedFixMailbox
    var counters: [String: Int] = [:]
    private var scanNumber = 0

    init(context: SourceContext, locator: NetworkLocator, pacer: ReplayPacer, mailbox: FusedFixMailbox) {
        self.context = context
        self.locator = locator
        self.pacer = pacer
        self.mailbox = mailbox
    }

    private var plugin: String { locator.settings.kind.rawValue }
    private var now: Double { Date().timeIntervalSince1970 }

    func runCommand(_ runner: CommandRunner, intervalSeconds: Double) {
        var next = now
        while !context.stop.isRaised {
            learnFromFusedFixes()
            if now >= next {
                next = now + intervalSeconds
                runOnce(runner)
            }
            context.stop.sleep(seconds: min(0.2, max(0, next - now)))
        }
        learnFromFusedFixes()
    }

    private func runOnce(_ runner: CommandRunner) {
        let result: CommandRunner.Result
        do { result = try runner.run(stop: context.stop) } catch {
            fail("sourceFailed", error.message)
            return
        }
        if context.stop.isRaised { return }
        let firstErrorLine = result.errorOutput.split(separator: "\n").first.map { ": " + ScanText.quote($0, limit: 200) } ?? ""
        if result.timedOut { return fail("sourceFailed", "'\(runner.command)' ran longer than \(runner.timeoutSeconds) s and was stopped") }
        if result.truncated { return fail("badInput", "'\(runner.command)' printed more than \(ScanParser.maximumBytes) bytes; ignored") }
        guard let status = result.status, status == 0 else {
            let how = result.status.map { "exited with status \($0)" } ?? "was killed"
            return fail("sourceFailed", "'\(runner.command)' \(how)\(firstErrorLine)")
        }
        handle(result.output, time: nil)
    }

    func runStream(path: String, idleFlushSeconds: Double) {
        let stream: ByteStream
        do { stream = try StreamOpeners.file(path) } catch {
            fail("sourceFailed", error.message)
            context.finish()
            return
        }
        var splitter = ScanRecordSplitter()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var lastData = now
        reading: while !context.stop.isRaised {
            learnFromFusedFixes()
            switch buffer.withUnsafeMutableBytes({ stream.read(into: $0, timeoutMilliseconds: 100) }) {
            case .data(let count):
                lastData = now
                for record in splitter.feed(buffer[0..<count]) { handle(record) }
            case .timeout:
                if now - lastData >= idleFlushSeconds, let record = splitter.flush() { handle(record) }
            case .end:
                break reading
            case .failed(let message):
                fail("sourceFailed", message)
                break reading
            }
        }
        if let record = splitter.flush() { handle(record) }
        learnFromFusedFixes()
        publishCounters()
        context.finish()
    }

    private func handle(_ record: ScanRecordSplitter.Record) {
        if record.oversize {
            scanNumber += 1
            return fail("badInput", "\(plugin) scan \(scanNumber): over \(ScanParser.maximumBytes) bytes (or a line over 64 kB); ignored")
        }
        handle(record.text, time: record.time)
    }

    /// One tool output: parse, locate, publish.
    func handle(_ text: String, time: Double?) {
        scanNumber += 1
        defer { publishCounters() }
        let scan: NetworkScan
        do { scan = try ScanParser.parse(text) } catch {
            return fail("badInput", "\(plugin) scan \(scanNumber): \(error.message)")
        }
        guard scan.format.isWiFi == (locator.settings.kind == .wifi) else {
            let other = scan.format.isWiFi ? "wifi" : "cell"
            return fail("badInput", "\(plugin) scan \(scanNumber): this is \(scan.format.rawValue) output; use locus-provider \(other)")
        }
        if scan.skippedEntries > 0 { counters["skippedEntries", default: 0] += scan.skippedEntries }
        var t = now
        if let time {
            let wait = pacer.delay(forFixTime: time, now: t)
            if wait > 0, !context.stop.sleep(seconds: wait) { return }
            t = time
        }
        do {
            if let fix = try locator.locate(scan, t: t) {
                if !fix.heldBack { context.emit(fix.location, t: t) }
            } else {
                context.status.set(.noFix, note: "no known beacons in the last scan")
            }
        } catch {
            fail("storeFailed", error.message)
        }
        learnFromFusedFixes()
    }

    func learnFromFusedFixes() {
        for fix in mailbox.take() {
            do { try locator.learn(from: fix.location, t: fix.t) } catch {
                fail("storeFailed", error.message)
            }
        }
    }

    private func fail(_ code: String, _ message: String) {
        counters[code, default: 0] += 1
        context.problem(code: code, message)
        if code == "sourceFailed" { context.status.set(.disconnected, note: message) }
    }

    private func publishCounters() {
        context.status.setCounters(locator.counters.merging(counters) { $1 })
    }
}
