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
        let cpuBefore = cpuSeconds(children: false)
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
                try CellImporter.readSome(fd, into: buffer, name: csv)
            }
        } catch {
            FileHandle.standardError.write(Data("locus bench network: import failed: \(error.message)\n".utf8))
            return 1
        }
        let ours = Double(report.imported) / (Date().timeIntervalSince1970 - started)
        let oursCPU = Double(report.imported) / max(1e-9, cpuSeconds(children: false) - cpuBefore)
        let childrenBefore = cpuSeconds(children: true)
        let peer = sqlitePeer(csv: csv, database: directory + "/peer.db")
        let peerCPU = peer.map { $0.rows / max(1e-9, cpuSeconds(children: true) - childrenBefore) }
        // SQLite's page cache fills during the first part of the import; after that, memory
        // must not grow with the rows read.
        let first = samples.first?.kilobytes ?? 0
        let half = samples.first { $0.rows >= report.imported / 2 }?.kilobytes ?? first
        let peak = samples.map(\.kilobytes).max() ?? 0
        let last = samples.last?.kilobytes ?? 0
        print("| importer | rows/s (wall) | rows per CPU second | resident memory |")
        print("|---|---:|---:|---|")
        print(String(format: "| locus beacons import-cells | %.0f | %.0f | %.1f MB after the first batch, %.1f MB half-way, %.1f MB at the end (peak %.1f MB) |",
                     ours, oursCPU, Double(first) / 1024, Double(half) / 1024, Double(last) / 1024, Double(peak) / 1024))
        if let peer, let peerCPU {
            print(String(format: "| sqlite3 .import --csv, same keyed table | %.0f | %.0f | — |", peer.wall, peerCPU))
        } else {
            print("| sqlite3 .import --csv | not run (sqlite3 not installed) | — | — |")
        }
        // Wall time on a shared machine counts the time others held the cores; CPU time does
        // not, so the goal is judged on it and the load is printed beside it.
        let met = oursCPU >= rateGoal && report.imported == rows && Double(last - half) < 2 * 1024
        print(String(format: "load average %@; goal: ≥ %.0f rows per CPU second, memory flat (< 2 MB growth over the second half): %@",
                     loadAverage(), rateGoal, met ? "met" : "NOT met"))
        BenchRecorder.shared.record(BenchRow(name: "cell import (OpenCellID layout, \(rows / 1000) k rows), per CPU second", ours: oursCPU,
                                             peer: peerCPU, peerName: "sqlite3 .import --csv", unit: "rows/s", goal: .atLeast(rateGoal)))
        return met ? 0 : 1
    }

    /// User plus system CPU seconds of this process (`RUSAGE_SELF`) or its finished children.
    static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// sqlite3's CSV import of the same file into a table keyed like ours: rows and rows/s
    /// (wall), nil when sqlite3 is absent.
    static func sqlitePeer(csv: String, database: String) -> (rows: Double, wall: Double)? {
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
        return (Double(count), Double(count) / seconds)
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
