import Foundation
import Glibc
import LocusService
import LocusProvider

/// `locus beacons`: the local beacon database of the `wifi` and `cell` plugins — import cells
/// from an OpenCellID-layout export, and say what is stored. Nothing here reads or writes
/// anything but local files.
enum BeaconsCommand {
    static let spec = CommandLineSpec(
        program: "locus beacons", summary: "the local Wi-Fi and cell database of network positioning",
        usage: "locus beacons import-cells [--db FILE] [--mcc LIST] FILE|-\n       locus beacons stats [--db FILE]",
        options: [
            OptionSpec("--db", value: "FILE", help: "beacon database (default $XDG_DATA_HOME/locus/beacons.db; created 0600)"),
            OptionSpec("--mcc", value: "LIST", help: "import-cells: only these mobile country codes, comma-separated (e.g. 262,232)"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
            import-cells reads the CSV layout radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal
            (the header line is optional; '-' reads stdin, so a compressed export streams: zcat cells.csv.gz | locus beacons import-cells -).
            A row is kept unless the database holds more samples for that cell. Rejected rows are counted and the first ten reported.
            """)

    static func run(_ arguments: [String]) -> Int32 {
        let options: ParsedOptions
        do { options = try spec.parse(arguments) } catch {
            FileHandle.standardError.write(Data("locus beacons: \(error.message)\n".utf8))
            return ServiceProgram.exitUsage
        }
        if options.flag("--help") {
            print(spec.helpText, terminator: "")
            return 0
        }
        let path = options.string("--db") ?? BeaconDatabase.defaultPath
        switch options.positionals.first {
        case "import-cells":
            guard options.positionals.count == 2 else { return usage("import-cells needs one FILE (or - for stdin)") }
            var filter: Set<Int>?
            if let list = options.string("--mcc") {
                let codes = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !codes.isEmpty, codes.allSatisfy({ $0.map { (1...999).contains($0) } ?? false }) else {
                    return usage("--mcc expects comma-separated codes 1–999, got '\(list)'")
                }
                filter = Set(codes.compactMap { $0 })
            }
            return importCells(from: options.positionals[1], database: path, filter: filter)
        case "stats":
            do {
                let database = try BeaconDatabase(path: path, mustExist: true)
                let counts = try database.counts()
                print("\(path): \(counts.wifi) access points, \(counts.cells) cells, \(counts.mobile) marked mobile")
                return 0
            } catch {
                FileHandle.standardError.write(Data("locus beacons: \(error.message)\n".utf8))
                return 1
            }
        default:
            return usage("give import-cells or stats")
        }
    }

    static func importCells(from source: String, database path: String, filter: Set<Int>?) -> Int32 {
        let fd = source == "-" ? 0 : open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            FileHandle.standardError.write(Data("locus beacons: cannot open \(source): \(String(cString: strerror(errno)))\n".utf8))
            return 66
        }
        defer { if fd != 0 { close(fd) } }
        let started = Date().timeIntervalSince1970
        do {
            let database = try BeaconDatabase(path: path)
            let report = try CellImporter(mccFilter: filter).run(into: database, now: started) { buffer throws(BeaconDatabaseError) in
                try CellImporter.readSome(fd, into: buffer, name: source)
            }
            let seconds = Date().timeIntervalSince1970 - started
            print(summary(report, seconds: seconds, database: path))
            for problem in report.problems { FileHandle.standardError.write(Data("locus beacons: \(source) \(problem)\n".utf8)) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("locus beacons: \(error.message)\n".utf8))
            return 1
        }
    }

    static func summary(_ report: CellImporter.Report, seconds: Double, database: String) -> String {
        String(format: "imported %d of %d rows into %@ in %.1f s (%.0f rows/s); %d of other MCCs, %d rejected (%d overlong lines)",
               report.imported, report.rows, database, seconds, Double(report.rows) / max(seconds, 1e-9), report.filtered,
               report.rejected, report.overlong)
    }

    static func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("locus beacons: \(message) (see --help)\n".utf8))
        return ServiceProgram.exitUsage
    }
}
