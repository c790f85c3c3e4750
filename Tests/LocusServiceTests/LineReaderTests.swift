import Foundation
import LocusService
import XCTest

/// The `--stdio` line reader: whole lines however the bytes arrive, the last one without a
/// newline at the end of input, and a line beyond the limit cut to a prefix and skipped.
final class LineReaderTests: XCTestCase {
    /// Writes `chunks` into a pipe one by one, reading after each, and returns every line read.
    private func read(_ chunks: [[UInt8]], maxLineBytes: Int? = nil) -> [String] {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var reader = LineReader(fd: fds[0])
        if let maxLineBytes { reader.maxLineBytes = maxLineBytes }
        var lines: [String] = []
        let collect: (UnsafeRawBufferPointer) -> Void = { lines.append(String(decoding: $0, as: UTF8.self)) }
        for chunk in chunks {
            var offset = 0
            while offset < chunk.count {
                // Small writes, each read at once: the reader sees the chunk in pieces of at most 4 KiB.
                let piece = Array(chunk[offset..<min(chunk.count, offset + 4096)])
                XCTAssertEqual(piece.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, piece.count)
                offset += piece.count
                XCTAssertFalse(reader.read(collect))
            }
        }
        close(fds[1])
        XCTAssertTrue(reader.read(collect))
        return lines
    }

    func testLinesSplitAcrossReadsComeWhole() {
        let text = (0..<2_000).map { "topic.\($0) {\"n\":\($0)}" }.joined(separator: "\n") + "\n"
        let bytes = Array(text.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: 777).map { Array(bytes[$0..<min(bytes.count, $0 + 777)]) }
        XCTAssertEqual(read(chunks), (0..<2_000).map { "topic.\($0) {\"n\":\($0)}" })
    }

    func testTheLastLineNeedsNoNewline() {
        XCTAssertEqual(read([Array("a 1\nb 2".utf8)]), ["a 1", "b 2"])
        XCTAssertEqual(read([Array("a 1\n".utf8)]), ["a 1"])
    }

    func testAnOverlongLineIsCutAndTheRestSkipped() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        let lines = read([Array("first 1\n".utf8), long, long, Array("tail of the long line\nnext 2\n".utf8)], maxLineBytes: 8_000)
        XCTAssertEqual(lines.count, 3, "\(lines.map(\.count))")
        XCTAssertEqual(lines[0], "first 1")
        XCTAssertEqual(lines[1], String(repeating: "x", count: 64), "a prefix, so the parser reports it")
        XCTAssertEqual(lines[2], "next 2", "the rest of the long line is skipped up to its newline")
    }
}
