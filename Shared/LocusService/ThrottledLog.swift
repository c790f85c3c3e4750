/// Logs at most `perSecond` lines per second and then one summary, so a peer sending
/// garbage in a loop is reported without drowning the log.
package struct ThrottledLog {
    let log: ServiceLog
    var perSecond = 10
    private var windowStart = 0.0
    private var inWindow = 0
    private var suppressed = 0

    package init(log: ServiceLog) { self.log = log }

    package mutating func warn(_ text: String, now: Double) {
        if now - windowStart >= 1 {
            if suppressed > 0 { log.warn("(\(suppressed) similar lines suppressed)") }
            windowStart = now
            inWindow = 0
            suppressed = 0
        }
        inWindow += 1
        if inWindow <= perSecond { log.warn(text) } else { suppressed += 1 }
    }
}
