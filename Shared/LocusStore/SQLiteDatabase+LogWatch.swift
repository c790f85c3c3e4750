import CSQLite

extension SQLiteDatabase {
    /// Calls `onLogSize` with the frames in the write-ahead log after each commit on this
    /// connection, so an owner can checkpoint on its own schedule (SQLite's WAL hook, which
    /// also replaces its automatic checkpoint).
    public func watchLog(_ onLogSize: @escaping (Int) -> Void) {
        let watcher = LogWatcher(onLogSize)
        logWatcher = watcher
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<LogWatcher>.fromOpaque(context).takeUnretainedValue().onLogSize(Int(frames))
            return SQLITE_OK
        }, Unmanaged.passUnretained(watcher).toOpaque())
    }
}

/// Holds the WAL hook's callback alive for as long as the connection that calls it.
final class LogWatcher {
    let onLogSize: (Int) -> Void
    init(_ onLogSize: @escaping (Int) -> Void) { self.onLogSize = onLogSize }
}
