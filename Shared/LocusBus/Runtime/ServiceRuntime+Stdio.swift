import Foundation
import LocusProtocol
import LocusService

/// `--stdio` mode: text-form lines in on stdin, out on stdout, no sockets; the clock is the
/// latest `t` read, so a replayed file gives the same output however fast it is fed.
extension ServiceRuntime {
    func runStdio() throws -> Int32 {
        log.info("started in --stdio mode")
        var poller = Poller()
        let stdinIndex = settings.readsInput ? poller.add(fileDescriptor: 0) : -1
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        let injectorBase = injectors.count > 0 ? poller.add(fileDescriptor: injectors[0].eventFD) : -1
        for injector in injectors.dropFirst() { poller.add(fileDescriptor: injector.eventFD) }
        var output = LineWriter(fd: 1)
        var sent = 0
        let emit: (Outbound) -> Void = { [self] outbound in
            seq += 1
            let message = Message(body: outbound.body, id: ids.next(), t: outbound.t, src: settings.source, seq: seq)
            output.write { line in
                line.append(contentsOf: outbound.topic.utf8)
                line.append(UInt8(ascii: " "))
                MessageCodec.encode(message, appendingTo: &line)
            }
            sent += 1
        }
        var input = LineReader(fd: 0)
        var stopping = !settings.readsInput && injectors.isEmpty
        var inputEnded = false
        while !stopping {
            var reading = holdBack(now: now(), emit: emit)
            if reading && !parkedLines.isEmpty {
                batch(now: stdioClock, emit: emit) { held in feed(&parkedLines, held: held) }
                reading = parkedLines.isEmpty && logic.acceptsInput
            }
            output.flush()
            // The end of input ends the run only once every line read has been handled.
            if inputEnded && reading {
                stopping = true
                continue
            }
            if stdinIndex >= 0 { poller.watch(stdinIndex, reading && !inputEnded) }
            let readable = try poller.poll(timeoutMilliseconds: reading ? -1 : Int(Self.retryIntervalSeconds * 1000))
            if stdinIndex >= 0 && readable[stdinIndex] {
                var ended = false
                batch(now: stdioClock, emit: emit) { held in
                    ended = input.read { line in
                        // Behind lines already held back, or while the logic refuses input, a
                        // line waits (copied out of the read buffer) in order.
                        if parkedLines.isEmpty && logic.acceptsInput {
                            handleLine(line, held: held)
                        } else {
                            parkedLines.append(Array(line))
                        }
                    }
                }
                if ended { inputEnded = true }
            }
            if injectorBase >= 0 {
                for (offset, injector) in injectors.enumerated() where readable[injectorBase + offset] {
                    batch(now: stdioClock, emit: emit) { held in
                        if take(injector.drain(), now: stdioClock, emit: { held([$0]) }) { stopping = true }
                    }
                }
            }
            if readable[stopIndex] { stopping = true }
        }
        batch(now: stdioClock, emit: emit) { held in held(logic.finish(now: stdioClock)) }
        output.flush()
        counters.add("sent", sent)
        log.info("stopped: sent=\(counters["sent"]) received=\(received) rejected=\(counters["rejected"])")
        return 0
    }

    /// Handles held-back lines from the front while the logic accepts input; the rest stay.
    private func feed(_ lines: inout [[UInt8]], held: ([Outbound]) -> Void) {
        var position = 0
        while position < lines.count && logic.acceptsInput {
            lines[position].withUnsafeBytes { handleLine($0, held: held) }
            position += 1
        }
        lines.removeFirst(position)
    }

    /// One text-form line, read where it lies in the input buffer.
    private func handleLine(_ line: UnsafeRawBufferPointer, held: ([Outbound]) -> Void) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) { return }
        let topic: String
        let message: Message
        do {
            (topic, message) = try TextForm.decode(line)
        } catch {
            held(reject(error, topic: nil, now: stdioClock))
            return
        }
        stdioClock = max(stdioClock, message.envelope.t)
        held(deliver(message, topic: topic, now: stdioClock))
        let ticked = logic.tick(now: stdioClock)
        if !ticked.isEmpty { held(ticked) }
    }
}
