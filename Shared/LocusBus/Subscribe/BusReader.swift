import Foundation
import LocusProtocol
public import LocusService

/// Receives and decodes bus messages on a thread of its own, for a service whose logic
/// alone keeps the runtime thread busy (the geofence under a fleet): decoding then runs on
/// the other core, beside the logic, instead of before it on the same thread.
///
/// The reader thread owns the SUB socket from `start()` until `stop()` returns (a socket is
/// used by one thread at a time; the join is the hand-over). Batches reach the runtime
/// through a locked queue and one wakeup per batch, not per message, and the reader stops
/// taking from the socket while `maximumQueued` full batches' worth waits: back-pressure reaches the
/// bus exactly as when the runtime reads the socket itself.
final class BusReader: @unchecked Sendable {
    private let subscriber: BusSubscriber
    private let maximumBatch: Int
    private let maximumQueued: Int
    private let lock = NSCondition()
    private var queue: [[BusSubscriber.Received]] = []
    private var queuedMessages = 0
    private var failure: ZMQError?
    /// The subscriber's counts, copied out with each batch.
    private var tally = BusSubscriber.Counts()
    private var stopping = false
    /// Set when the runtime has been woken and has not taken since.
    private var signalled = false
    private let ready = Wakeup()
    private let stopRequest = Wakeup()
    private let finished = DispatchSemaphore(value: 0)

    /// `maximumBatch` messages per batch at most, `maximumQueued × maximumBatch` waiting at
    /// most; the runtime drains several batches into one flush.
    init(subscriber: BusSubscriber, maximumBatch: Int = 4_096, maximumQueued: Int = 4) {
        self.subscriber = subscriber
        self.maximumBatch = maximumBatch
        self.maximumQueued = maximumQueued
    }

    /// Readable when batches (or a failure) wait in `take()`: the runtime polls it.
    var readyFD: Int32 { ready.readFD }

    func start() {
        let thread = Thread { [self] in
            read()
            finished.signal()
        }
        thread.name = "bus-reader"
        thread.start()
    }

    /// Everything queued, oldest first, and the error that stopped the reader, if one did
    /// (runtime thread only).
    func take() -> (batches: [[BusSubscriber.Received]], failure: ZMQError?) {
        ready.clear()
        lock.lock()
        let batches = queue
        queue.removeAll(keepingCapacity: true)
        queuedMessages = 0
        let failure = failure
        signalled = false
        lock.broadcast()
        lock.unlock()
        return (batches, failure)
    }

    /// Hands everything queued to `body`, oldest first, and keeps taking what the reader
    /// queues meanwhile until nothing waits or `limit` messages were handed (runtime thread
    /// only): a slow `body` under a flood then covers many of the reader's batches in one
    /// go — for the geofence one commit — while a pause in the input ends it at once.
    /// Returns how many were handed; throws the error that stopped the reader.
    @discardableResult
    func drain(upTo limit: Int, _ body: (BusSubscriber.Received) -> Void) throws(ZMQError) -> Int {
        var handed = 0
        repeat {
            var (batches, failure) = take()
            if let failure { throw failure }
            for index in batches.indices {
                handed += batches[index].count
                // Each message is moved out of its batch (a trivial case left in its place),
                // not copied: no retain and release of its strings per hand-over.
                batches[index].withUnsafeMutableBufferPointer { messages in
                    for position in messages.indices {
                        var received = BusSubscriber.Received.duplicate
                        swap(&received, &messages[position])
                        body(received)
                    }
                }
            }
        } while handed < limit && queuedCount > 0
        return handed
    }

    /// Messages waiting in `take()` (a failure counts as one).
    var queuedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return queuedMessages + (failure == nil ? 0 : 1)
    }

    /// Duplicates dropped and sequence gaps seen so far.
    var counts: BusSubscriber.Counts {
        lock.lock()
        defer { lock.unlock() }
        return tally
    }

    /// Ends the reader thread and waits for it; the socket is the caller's again afterwards.
    func stop() {
        lock.lock()
        stopping = true
        lock.broadcast()
        lock.unlock()
        stopRequest.signal()
        finished.wait()
    }

    private func read() {
        var poller = Poller()
        poller.add(subscriber.socket)
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        do {
            while true {
                let readable = try poller.poll(timeoutMilliseconds: -1)
                if readable[stopIndex] { return }
                var batch: [BusSubscriber.Received] = []
                // Room for a full batch up front: growing by doubling moved every message
                // once more (a received message is a few hundred bytes).
                batch.reserveCapacity(maximumBatch)
                while batch.count < maximumBatch, let received = try subscriber.receive(dontWait: true) {
                    batch.append(received)
                }
                guard !batch.isEmpty else { continue }
                lock.lock()
                // Only the first batch of a wait wakes the runtime: under load that is one
                // hand-off per few thousand messages, not one per poll. Batches are queued as
                // they are (joining them would copy every message once more), bounded by the
                // messages they hold.
                while queuedMessages > 0 && queuedMessages + batch.count > maximumBatch * maximumQueued && !stopping {
                    lock.wait()
                }
                if stopping {
                    lock.unlock()
                    return
                }
                queuedMessages += batch.count
                queue.append(batch)
                tally = subscriber.counts
                let wake = !signalled
                signalled = true
                lock.unlock()
                if wake { ready.signal() }
            }
        } catch {
            lock.lock()
            failure = error
            lock.unlock()
            ready.signal()
        }
    }
}
