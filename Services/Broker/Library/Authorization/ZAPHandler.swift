import CZeroMQ
import Foundation
import LocusBus
import LocusService

/// The ZAP handler (ZeroMQ RFC 27) on its own thread: every CURVE handshake on the bus
/// asks it whether the client's public key is on the allow-list. Unknown keys get 400
/// and the connection is closed before any message moves; known keys get 200 with the
/// client's name as User-Id, which libzmq then attaches to every message and
/// subscription from that connection. Without this handler CURVE only encrypts.
final class ZAPHandler: @unchecked Sendable {
    static let endpoint = "inproc://zeromq.zap.01"
    private let allowList: AllowList
    private let log: ServiceLog
    private let done = DispatchSemaphore(value: 0)
    private let counterLock = NSLock()
    private var refusedCount = 0
    private var acceptedCount = 0

    init(allowList: AllowList, log: ServiceLog) {
        self.allowList = allowList
        self.log = log
    }

    var counts: (accepted: Int, refused: Int) {
        counterLock.lock(); defer { counterLock.unlock() }
        return (acceptedCount, refusedCount)
    }

    /// Binds the ZAP endpoint (before any CURVE socket binds) and serves until the context shuts down.
    func start(context: ZMQContext) throws {
        let bound = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let thread = Thread { [self] in
            let socket: ZMQSocket
            do {
                socket = try ZMQSocket(context: context, type: .rep)
                try socket.bind(Self.endpoint)
            } catch {
                failure.error = "\(error)"
                bound.signal()
                done.signal()
                return
            }
            bound.signal()
            serve(socket)
            socket.close()
            done.signal()
        }
        thread.name = "locus-bus-zap"
        thread.start()
        bound.wait()
        if let error = failure.error { throw CurveKeyError("ZAP handler: \(error)") }
    }

    /// Carries a start-up failure from the handler thread to the caller, which waits for it.
    private final class FailureBox: @unchecked Sendable { var error: String? }

    func waitUntilStopped() { done.wait() }

    private func serve(_ socket: ZMQSocket) {
        while true {
            let frames: [[UInt8]]
            do {
                guard let received = try socket.receiveMultipart() else { continue }
                frames = received
            } catch {
                return
            }
            let reply = answer(frames)
            do {
                for (index, frame) in reply.enumerated() { try socket.send(frame, more: index < reply.count - 1) }
            } catch {
                return
            }
        }
    }

    /// Request: version, request id, domain, address, identity, mechanism, credentials…
    /// Reply: version, request id, status code, status text, user id, metadata.
    func answer(_ frames: [[UInt8]]) -> [[UInt8]] {
        let id = frames.count > 1 ? frames[1] : []
        func reply(_ code: String, _ text: String, user: String = "") -> [[UInt8]] {
            [Array("1.0".utf8), id, Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
        }
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else { return reply("500", "bad ZAP request") }
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        let address = String(decoding: frames[3], as: UTF8.self)
        guard mechanism == "CURVE", frames.count >= 7, let key = CurveKeyPair.z85Encode(frames[6]) else {
            count(refused: true)
            log.warn("refused a \(mechanism) connection from \(address): only CURVE is accepted here")
            return reply("400", "CURVE required")
        }
        guard let entry = allowList.byKey[key] else {
            count(refused: true)
            log.warn("refused unknown CURVE key \(key) from \(address)")
            return reply("400", "unknown key")
        }
        count(refused: false)
        log.debug("accepted \(entry.name) from \(address)")
        return reply("200", "OK", user: entry.name)
    }

    private func count(refused: Bool) {
        counterLock.lock()
        if refused { refusedCount += 1 } else { acceptedCount += 1 }
        counterLock.unlock()
    }
}
