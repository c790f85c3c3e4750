import Foundation
import Glibc
import LocusNet
import XCTest

/// `HTTPServer` on a real loopback socket: requests answered by the handler, bounds enforced.
final class HTTPServerTests: XCTestCase {
    private func withServer(limits: ServerLimits = ServerLimits().with { $0.maximumBodyBytes = 1024 },
                            _ body: (HTTPServer) throws -> Void) throws {
        let listener = try Listener.tcp(ListenAddress(host: "127.0.0.1", port: 0))
        let server = HTTPServer(listener: listener, limits: limits) { request in
            HTTPResponse.text(200, "\(request.head.method) \(request.head.target) \(String(decoding: request.body, as: UTF8.self))")
        }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            server.run()
            done.signal()
        }
        thread.start()
        defer {
            server.stop()
            done.wait()
        }
        try body(server)
    }

    /// Sends `bytes` on a new connection and reads until the server closes it.
    private func exchange(_ port: UInt16, _ bytes: [UInt8], holdOpenSeconds: Double = 0) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    func testAnswersAGetAndAPostWithItsBodyThenCloses() throws {
        try withServer { server in
            let get = try exchange(server.port, Array("GET /metrics?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            XCTAssertTrue(get.hasPrefix("HTTP/1.1 200 OK\r\n"), get)
            XCTAssertTrue(get.hasSuffix("\r\n\r\nGET /metrics?x=1 \n"), get)
            let post = try exchange(server.port, Array("POST / HTTP/1.1\r\nContent-Length: 8\r\n\r\nid=phone".utf8))
            XCTAssertTrue(post.hasSuffix("POST / id=phone\n"), post)
            XCTAssertEqual(server.statistics.requests, 2)
        }
    }

    func testRefusesTooLargeBodiesAndSlowClientsWithoutCallingTheHandler() throws {
        let limits = ServerLimits().with {
            $0.maximumBodyBytes = 16
            $0.requestTimeoutSeconds = 0.3
        }
        try withServer(limits: limits) { server in
            let large = try exchange(server.port, Array("POST / HTTP/1.1\r\nContent-Length: 17\r\n\r\n".utf8))
            XCTAssertTrue(large.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), large)
            let slow = try exchange(server.port, Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc".utf8))
            XCTAssertTrue(slow.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), slow)
            XCTAssertEqual(server.statistics.requests, 0)
            XCTAssertEqual(server.statistics.badRequests, 1)
            XCTAssertEqual(server.statistics.requestTimeouts, 1)
        }
    }
}
