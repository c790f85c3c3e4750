import Foundation
import LocusGeo

/// Streams a cell export in OpenCellID's CSV layout into the beacon database: read in 1 MiB
/// pieces, split at newlines, each row parsed from its bytes and written in transactions of
/// `batchRows` sorted by key, with SQLite's page cache fixed at `cacheMegabytes`, so memory
/// stays flat whatever the file's size. A line longer than
/// `maximumLineBytes` (a row is under 200 bytes) is skipped without being buffered, up to
/// its end however far that is. Rejected rows are counted and the first few reported with
/// their line numbers; the rest of the file goes on.
public struct CellImporter {
    public struct Report: Sendable, Equatable {
        /// Data lines read (not the header, not blank lines), overlong ones included.
        public var rows = 0
        public var imported = 0
        /// Rows of other MCCs than asked for.
        public var filtered = 0
        public var rejected = 0
        public var overlong = 0
        /// The first rejections, as `line N: reason`.
        public var problems: [String] = []
    }

    /// Keep only these MCCs (nil: all).
    public var mccFilter: Set<Int>?
    public var maximumLineBytes = 4096
    public var batchRows = 50_000
    public var maximumProblems = 10
    /// SQLite's page cache during the import: the bound on memory, and what keeps the
    /// B-tree's pages in memory between rows (batches are also sorted by key).
    public var cacheMegabytes = 16
    /// Called after each committed batch (progress, memory sampling).
    public var afterBatch: ((Report) -> Void)?

    public init(mccFilter: Set<Int>? = nil) {
        self.mccFilter = mccFilter
    }

    /// Imports what `read` delivers: it fills the buffer it is given and returns the byte
    /// count, 0 at the end, or throws. `now` stamps rows without an `updated` column.
    public func run(into database: BeaconDatabase, now: Double,
                    read: (UnsafeMutableRawBufferPointer) throws(BeaconDatabaseError) -> Int) throws(BeaconDatabaseError) -> Report {
        var state = ImportState(importer: self, database: database, now: now)
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var filled = 0
        var discarding = false
        var ended = false
        try database.prepareForBulkImport(cacheMegabytes: cacheMegabytes)
        while !ended {
            let count = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            ended = count == 0
            let end = filled + count
            var start = 0
            while start < end, let found = memchr(base + start, 0x0A, end - start) {
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                state.line += 1
                if discarding {
                    discarding = false
                    state.overlong()
                } else {
                    try state.take(UnsafeBufferPointer(start: base + start, count: newline - start))
                }
                start = newline + 1
            }
            if discarding {
                filled = 0
            } else if end - start > maximumLineBytes {
                discarding = true
                filled = 0
            } else {
                if start > 0, end > start { memmove(base, base + start, end - start) }
                filled = end - start
            }
            if ended {
                state.line += 1
                if discarding {
                    state.overlong()
                } else if filled > 0 {
                    try state.take(UnsafeBufferPointer(start: base, count: filled))
                }
            }
        }
        try state.commit()
        return state.report
    }
}

/// The running part of one import: rows waiting for their transaction, the report.
private struct ImportState {
    let importer: CellImporter
    let database: BeaconDatabase
    let now: Double
    var report = CellImporter.Report()
    var pending: [OpenCellIDRow] = []
    var line = 0

    init(importer: CellImporter, database: BeaconDatabase, now: Double) {
        self.importer = importer
        self.database = database
        self.now = now
        pending.reserveCapacity(importer.batchRows)
    }

    mutating func take(_ raw: UnsafeBufferPointer<UInt8>) throws(BeaconDatabaseError) {
        var bytes = raw
        if bytes.last == 0x0D { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
        if bytes.isEmpty || bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        if bytes.starts(with: "radio,".utf8) { return }
        report.rows += 1
        if let filter = importer.mccFilter, let mcc = OpenCellIDRow.mcc(bytes), !filter.contains(mcc) {
            report.filtered += 1
            return
        }
        do {
            pending.append(try OpenCellIDRow.parse(bytes))
        } catch {
            report.rejected += 1
            if report.problems.count < importer.maximumProblems { report.problems.append("line \(line): \(error.message)") }
            return
        }
        if pending.count >= importer.batchRows { try commit() }
    }

    mutating func overlong() {
        report.rows += 1
        report.overlong += 1
        report.rejected += 1
        if report.problems.count < importer.maximumProblems {
            report.problems.append("line \(line): longer than \(importer.maximumLineBytes) bytes; skipped")
        }
    }

    mutating func commit() throws(BeaconDatabaseError) {
        guard !pending.isEmpty else { return }
        // Rows in key order touch each B-tree page once per batch instead of at random.
        let rows = pending.sorted { a, b in
            (a.identity.radio, a.identity.mcc, a.identity.mnc, a.identity.area, a.identity.cell)
                < (b.identity.radio, b.identity.mcc, b.identity.mnc, b.identity.area, b.identity.cell)
        }
        let now = self.now
        try database.transaction { () throws(BeaconDatabaseError) in
            for row in rows {
                let radius = row.range > 0 ? min(max(row.range, BeaconKind.cell.minimumRadiusMeters), BeaconKind.cell.maximumRadiusMeters)
                    : BeaconKind.cell.defaultRadiusMeters
                let samples = max(1, row.samples)
                let record = BeaconRecord(position: Coordinate(lat: row.lat, lon: row.lon), radius: radius,
                                          weight: Double(samples) * 4 / (radius * radius), samples: samples, updated: row.updated ?? now)
                try database.importCell(row.identity, record)
            }
        }
        report.imported += rows.count
        pending.removeAll(keepingCapacity: true)
        importer.afterBatch?(report)
    }
}
