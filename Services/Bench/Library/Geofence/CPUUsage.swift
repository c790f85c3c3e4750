import Foundation
import LocusService

/// CPU time of a few processes from a starting point, so a throughput run can say what
/// each fix cost each process whatever else shared the cores.
struct CPUUsage {
    let processes: [(name: String, pid: Int32)]
    let start: [Int]

    init(_ processes: [(name: String, pid: Int32)]) {
        self.processes = processes
        start = processes.map { ProcSample.read(pid: $0.pid)?.cpuTicks ?? 0 }
    }

    /// Seconds of CPU (user + system, every thread) each process used since `init`.
    func secondsSince() -> [Double] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return zip(processes, start).map { process, before in
            Double((ProcSample.read(pid: process.pid)?.cpuTicks ?? before) - before) / ticksPerSecond
        }
    }
}
