import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SQLite's busy handler for every connection: retry at once a few times, then every 50 µs,
/// then every millisecond, for about 5 s in all (as `sqlite3_busy_timeout(5000)` would).
/// SQLite's own schedule sleeps 1, 2, 5, 10… ms, but every write here holds the lock for well
/// under a millisecond, and a millisecond's sleep is the whole latency budget of an event.
/// A `PRAGMA busy_timeout` run on the connection replaces this handler.
let sqliteBusyRetry: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { _, count in
    switch count {
    case ..<8: sched_yield()
    case ..<200: usleep(50)
    case ..<5_200: usleep(1_000)
    default: return 0
    }
    return 1
}
