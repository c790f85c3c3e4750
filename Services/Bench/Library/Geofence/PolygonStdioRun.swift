import Foundation
import Glibc
import LocusGeo
import LocusProtocol
import LocusService

/// `locus-geofence --stdio` fed a moving fleet from a file, with the polygon file's regions
/// and without any: whether the regions cost the pipeline more than the plumbing does.
/// The runs alternate (none, regions, regions alone; three rounds) and medians are
/// quoted; "regions alone" (the adds without fixes) is taken off the regions run, so the
/// fix rate is not charged for parsing and indexing the file.
struct PolygonStdioRun {
    let file: PolygonBenchFile
    let devices: Int
    let fixes: Int
    let seed: UInt64

    func run() -> Int32 {
        let directory = NSTemporaryDirectory() + "locus-bench-polygons-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixesPath = directory + "/fixes.txt", regionsPath = directory + "/regions.txt", bothPath = directory + "/both.txt"
        let regionLines = regionText()
        let fixLines = fleetText()
        guard FileManager.default.createFile(atPath: fixesPath, contents: fixLines),
              FileManager.default.createFile(atPath: regionsPath, contents: regionLines),
              FileManager.default.createFile(atPath: bothPath, contents: regionLines + fixLines) else {
            FileHandle.standardError.write(Data("locus bench geofence: cannot write the --stdio input\n".utf8))
            return 1
        }
        var none: [Timing] = [], both: [Timing] = [], setup: [Timing] = []
        do {
            for _ in 0..<3 {
                none.append(try time(input: fixesPath, output: directory + "/out.txt"))
                both.append(try time(input: bothPath, output: directory + "/out.txt"))
                setup.append(try time(input: regionsPath, output: directory + "/out.txt"))
            }
        } catch {
            FileHandle.standardError.write(Data("locus bench geofence: \(error)\n".utf8))
            return 1
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let noneRate = median(none.map { Double(fixes) / $0.wall })
        let bothRate = median(both.map { Double(fixes) / $0.wall })
        let fixRate = median(zip(both, setup).map { Double(fixes) / max($0.wall - $1.wall, 1e-9) })
        let noneCPU = median(none.map { Double(fixes) / $0.cpu })
        let fixCPU = median(zip(both, setup).map { Double(fixes) / max($0.cpu - $1.cpu, 1e-9) })
        print("| locus-geofence --stdio, \(devices) moving devices, \(fixes) fixes (medians of 3 alternated rounds) | value |")
        print("|---|---:|")
        print("| fixes/s with no regions (read, decode, write: the floor) | \(Int(noneRate)) |")
        print("| fixes/s with the \(file.shapes.count) regions, whole run | \(Int(bothRate)) |")
        print("| fixes/s with the regions, less the run of the adds alone (\(String(format: "%.2f", median(setup.map(\.wall)))) s) | \(Int(fixRate)) |")
        print("| with regions ÷ without | \(String(format: "%.0f %%", fixRate / noneRate * 100)) (goal ≥ 80 %) |")
        print("| fixes per CPU second, without / with regions | \(Int(noneCPU)) / \(Int(fixCPU)) |")
        print("| events in the last run with regions | \(both.last?.events ?? 0) |")
        return 0
    }

    struct Timing {
        var wall: Double
        var cpu: Double
        var events: Int
    }

    /// Runs the service on one input file; wall time and the child's CPU time.
    private func time(input: String, output: String) throws -> Timing {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServiceProgram.ownDirectory + "/locus-geofence")
        process.arguments = ["--stdio", "--default-authorization", "always", "--quota", String(max(file.shapes.count, 10_000)),
                             "--log-level", "warn"]
        FileManager.default.createFile(atPath: output, contents: nil)
        process.standardInput = FileHandle(forReadingAtPath: input)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        var before = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let start = Date().timeIntervalSince1970
        try process.run()
        process.waitUntilExit()
        let wall = Date().timeIntervalSince1970 - start
        var after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        func seconds(_ usage: rusage) -> Double {
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        guard process.terminationStatus == 0 else { throw PolygonBenchError("locus-geofence --stdio exited with \(process.terminationStatus)") }
        let written = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
        let events = written.split(separator: 0x0a).filter { $0.starts(with: Array("region.event.".utf8)) }.count
        return Timing(wall: wall, cpu: seconds(after) - seconds(before), events: events)
    }

    /// One `region.add` per region, owner "bench".
    private func regionText() -> Data {
        var ids = MessageIDGenerator()
        var text = Data()
        for region in file.regions {
            let message = Message(body: .regionAdd(RegionAdd(owner: "bench", region: region)), id: ids.next(), t: 1_800_000_000, src: "bench")
            text.append(Data(TextForm.line(topic: Topic.regionCmd, body: MessageCodec.encode(message)).utf8))
            text.append(0x0a)
        }
        return text
    }

    /// Devices start at random points of random regions' boxes and drive straight at
    /// 10–30 m/s, one fix a second each, accuracy 5–30 m.
    private func fleetText() -> Data {
        var random = SeededGenerator(seed: seed &+ 7)
        var ids = MessageIDGenerator()
        var positions: [Coordinate] = []
        var velocities: [(east: Double, north: Double)] = []
        for _ in 0..<devices {
            let box = file.shapes[Int.random(in: 0..<file.shapes.count, using: &random)].boundingBox
            let east = box.maxLon >= box.minLon ? Double.random(in: box.minLon...box.maxLon, using: &random) : box.minLon
            positions.append(Coordinate(lat: Double.random(in: box.minLat...box.maxLat, using: &random), lon: east))
            let heading = Double.random(in: 0..<(2 * Double.pi), using: &random), speed = Double.random(in: 10...30, using: &random)
            velocities.append((speed * sin(heading), speed * cos(heading)))
        }
        var text = Data()
        text.reserveCapacity(fixes * 200)
        for number in 0..<fixes {
            let device = number % devices
            let t = 1_800_000_001 + Double(number / devices)
            let next = LocalTangentPlane(origin: positions[device]).unproject(east: velocities[device].east, north: velocities[device].north)
            positions[device] = Coordinate(lat: max(-89, min(89, next.lat)), lon: next.lon)
            let name = "v\(device)"
            let fix = Location(device: name, source: "fused", lat: positions[device].lat, lon: positions[device].lon,
                               hacc: Double.random(in: 5...30, using: &random))
            let message = Message(body: .location(fix), id: ids.next(), t: t, src: "bench/fleet")
            text.append(Data(TextForm.line(topic: Topic.locationFused(name), body: MessageCodec.encode(message)).utf8))
            text.append(0x0a)
        }
        return text
    }
}

struct PolygonBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
