import Foundation
import LocusProtocol

/// `locus bench codec`: how fast the hand-written codec encodes and decodes a realistic
/// location, next to Foundation's JSONEncoder/JSONDecoder on an equivalent Codable struct,
/// in the same run. The codec exists because a Codable-only path would bound the bus's
/// throughput (docs/benchmarks.md); the goal is at least 5× Foundation.
public enum CodecBench {
    /// Parses `--count N` (default 200 000), measures best of 3 rounds, prints a markdown
    /// table and returns 0; returns 64 for bad arguments.
    public static func run(arguments: [String]) -> Int32 {
        let count: Int
        switch BenchCountOption.parse(arguments, bench: "codec", defaultCount: 200_000, counting: "messages") {
        case .success(let value): count = value
        case .failure(let exit): return exit.code
        }
        let results = measureAll(count: count)
        print(table(results, count: count))
        for (name, pair) in [("encode", results.encode), ("decode", results.decode), ("encode+decode", results.roundTrip)] {
            BenchRecorder.shared.record(BenchRow(name: "codec \(name) (location)", ours: pair.ours, peer: pair.foundation,
                                                 peerName: "Foundation JSONEncoder/JSONDecoder", unit: "msg/s", goal: .ratioAtLeast(5)))
        }
        return 0
    }

    /// Messages per second for each operation, ours and Foundation's.
    public struct Results: Sendable {
        public var encode: (ours: Double, foundation: Double)
        public var decode: (ours: Double, foundation: Double)
        public var roundTrip: (ours: Double, foundation: Double)
    }

    public static func measureAll(count: Int) -> Results {
        let message = sampleMessage
        let bytes = MessageCodec.encode(message)
        let codable = CodableLocation(message)
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        let data = try! encoder.encode(codable)

        let oursEncode = bestRate(count) { sink in sink &+= MessageCodec.encode(message).count }
        let oursDecode = bestRate(count) { sink in
            if case .location(let location) = try! MessageCodec.decode(bytes).body { sink &+= Int(location.lat) }
        }
        let oursRoundTrip = bestRate(count) { sink in
            if case .location(let location) = try! MessageCodec.decode(MessageCodec.encode(message)).body { sink &+= Int(location.lat) }
        }
        let foundationEncode = bestRate(count) { sink in sink &+= try! encoder.encode(codable).count }
        let foundationDecode = bestRate(count) { sink in sink &+= Int(try! decoder.decode(CodableLocation.self, from: data).lat) }
        let foundationRoundTrip = bestRate(count) { sink in
            sink &+= Int(try! decoder.decode(CodableLocation.self, from: encoder.encode(codable)).lat)
        }
        return Results(
            encode: (oursEncode, foundationEncode), decode: (oursDecode, foundationDecode),
            roundTrip: (oursRoundTrip, foundationRoundTrip))
    }

    /// The fastest of three rounds of `count` calls, in calls per second.
    private static func bestRate(_ count: Int, _ body: (inout Int) -> Void) -> Double {
        var best = 0.0
        var sink = 0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count { body(&sink) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = max(best, Double(count) / seconds)
        }
        if sink == 42 { print("", terminator: "") }  // keeps the work observable
        return best
    }

    public static func table(_ results: Results, count: Int) -> String {
        func row(_ name: String, _ pair: (ours: Double, foundation: Double)) -> String {
            let ratio = pair.ours / pair.foundation
            let verdict = ratio >= 5 ? "met" : "missed"
            return "| \(name) | \(format(pair.ours)) | \(format(pair.foundation)) | \(String(format: "%.1f×", ratio)) | ≥ 5× (\(verdict)) |"
        }
        return """
            Codec benchmark: one location message, \(count) iterations, best of 3 (messages/s)

            | operation | Locus codec | Foundation JSONEncoder/JSONDecoder | ratio | goal |
            |---|---:|---:|---:|---|
            \(row("encode", results.encode))
            \(row("decode", results.decode))
            \(row("encode+decode", results.roundTrip))
            """
    }

    private static func format(_ rate: Double) -> String {
        rate >= 1e6 ? String(format: "%.2f M", rate / 1e6) : String(format: "%.0f k", rate / 1e3)
    }

    /// A realistic fix: what a GNSS provider publishes.
    static let sampleMessage = Message(
        body: .location(Location(
            device: "truck-7", source: "gps", lat: 37.42199830000001, lon: -122.08400000000002, hacc: 4.8,
            alt: 31.5, speed: 13.4, course: 271.3, mode: "3d", sats: 11, hdop: 0.9)),
        id: "3f9a61c2d4e8b705-1842", t: 1_715_012_345.25, src: "provider/gps0", seq: 1842)
}

/// The same location as a Codable struct, the way a Foundation-only codec would carry it.
struct CodableLocation: Codable {
    var v: Int
    var type: String
    var id: String
    var t: Double
    var src: String
    var seq: Int?
    var device: String
    var source: String
    var lat: Double
    var lon: Double
    var hacc: Double
    var alt: Double?
    var speed: Double?
    var course: Double?
    var mode: String?
    var sats: Int?
    var hdop: Double?

    init(_ message: Message) {
        guard case .location(let location) = message.body else { fatalError("the benchmark sample is a location") }
        v = message.envelope.v
        type = message.envelope.type
        id = message.envelope.id
        t = message.envelope.t
        src = message.envelope.src
        seq = message.envelope.seq
        device = location.device
        source = location.source
        lat = location.lat
        lon = location.lon
        hacc = location.hacc
        alt = location.alt
        speed = location.speed
        course = location.course
        mode = location.mode
        sats = location.sats
        hdop = location.hdop
    }
}
