import Foundation
import Glibc
import LocusProvider

/// The OpenCellID-layout import half of `locus bench network`: a generated file of `rows`
/// rows imported by `CellImporter` into a fresh database, beside sqlite3's own CSV import of
/// the same file into the same keyed table; resident memory is sampled after every batch.
enum BeaconImportBench {
    static let rateGoal = 200_000.0

    static func run(rows: Int) -> Int32 {
        let directory = NSTemporaryDirectory() + "locus-import-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = directory + "/cells.csv"
        guard writeRows(rows, to: csv) else {
            FileHandle.standardError.write(Data("locus bench network: cannot write \(csv)\n".utf8))
            return 1
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int) ?? 0
        print(String(format: "\nOpenCellID-layout import: %d rows (%.0f MB), one transaction per 50 000 rows\n", rows, Double(size) / 1e6))

        var samples: [(rows: Int, kilobytes: Int)] = []
        let started = Date().timeIntervalSince1970
        let report: CellImporter.Report
        do {
            let database = try BeaconDatabase(path: directory + "/beacons.db")
            var importer = CellImporter()
            importer.afterBatch = { progress in
                if let sample = ProcSample.read(pid: getpid()) { samples.append((progress.imported, sample.rssKilobytes)) }
            }
            let fd = open(csv, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            report = try importer.run(into: database, now: started) { buffer throws(BeaconDatabaseError) in
                try BeaconsCommand.readSome(fd, into: buffer, name: csv)
            }
        } catch {
            FileHandle.standardError.write(Data("locus bench network: import failed: \(error.message)\n".utf8))
            return 1
        }
        let ours = Double(report.imported) / (Date().timeIntervalSince1970 - started)
        let peer = sqlitePeer(csv: csv, database: directory + "/peer.db")
        let first = samples.first?.kilobytes ?? 0
        let peak = samples.map(\.kilobytes).max() ?? 0
        let last = samples.last?.kilobytes ?? 0
        print("| importer | rows/s | resident memory |")
        print("|---|---:|---|")
        print(String(format: "| locus beacons import-cells | %.0f | %.1f MB after the first batch, %.1f MB peak, %.1f MB at the end (%+.1f MB over %d rows) |",
                     ours, Double(first) / 1024, Double(peak) / 1024, Double(last) / 1024, Double(last - first) / 1024, report.imported))
        if let peer {
            print(String(format: "| sqlite3 .import --csv, same keyed table | %.0f | — |", peer))
        } else {
            print("| sqlite3 .import --csv | not run (sqlite3 not installed) | — |")
        }
        let met = ours >= rateGoal && report.imported == rows && Double(last - first) < 8 * 1024
        print(String(format: "goal: ≥ %.0f rows/s with memory flat (< 8 MB growth): %@", rateGoal, met ? "met" : "NOT met"))
        BenchRecorder.shared.record(BenchRow(name: "cell import (OpenCellID layout, \(rows / 1000) k rows)", ours: ours, peer: peer,
                                             peerName: "sqlite3 .import --csv", unit: "rows/s", goal: .atLeast(rateGoal)))
        return met ? 0 : 1
    }

    /// sqlite3's CSV import of the same file into a table keyed like ours; rows/s, nil when absent.
    static func sqlitePeer(csv: String, database: String) -> Double? {
        let schema = "CREATE TABLE cells (radio TEXT, mcc INTEGER, net INTEGER, area INTEGER, cell INTEGER, unit INTEGER, lon REAL, "
            + "lat REAL, range INTEGER, samples INTEGER, changeable INTEGER, created INTEGER, updated INTEGER, averageSignal INTEGER, "
            + "PRIMARY KEY (radio, mcc, net, area, cell)) WITHOUT ROWID;"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", database, "PRAGMA journal_mode = WAL;", "PRAGMA synchronous = NORMAL;", schema,
                             ".import --csv --skip 1 \(csv) cells", "SELECT count(*) FROM cells;"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = Date().timeIntervalSince1970
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince1970 - started
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard process.terminationStatus == 0, let count = lines.last.flatMap({ Int($0) }), count > 0 else { return nil }
        return Double(count) / seconds
    }

    /// Writes `rows` seeded rows in the OpenCellID layout (header first), 1 MB at a time.
    static func writeRows(_ rows: Int, to path: String) -> Bool {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { return false }
        defer { try? handle.close() }
        var random = GaussianNoise(seed: 0x4F43_4944)
        var chunk = OpenCellIDRow.header + "\n"
        let radios = ["GSM", "UMTS", "LTE", "LTE", "NR"]
        let countries = [262, 232, 228, 208, 310]
        for index in 0..<rows {
            let radio = radios[index % radios.count]
            let mcc = countries[(index / 7) % countries.count]
            let lon = -10 + 40 * random.uniform(), lat = 35 + 25 * random.uniform()
            chunk += "\(radio),\(mcc),\(1 + index % 9),\(1000 + index % 4000),\(100_000 + index),\(index % 500),"
                + String(format: "%.6f,%.6f", lon, lat) + ",\(200 + index % 3000),\(1 + index % 60),1,1459338453,1613474830,0\n"
            if chunk.utf8.count >= 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
        return true
    }
}
