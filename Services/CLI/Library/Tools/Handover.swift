import Foundation
import Glibc

/// `locus bench …` runs `locus-bench …` and `locus nats …` runs `locus-nats …` in its place:
/// programs of their own, so the command line links no benchmark, no service it measures and
/// not the bus's authorization.
enum Handover {
    static func run(program: String, command: String, _ arguments: [String]) -> Int32 {
        let directory = Supervisor.ownDirectory
        let path = directory + "/" + program
        guard FileManager.default.isExecutableFile(atPath: path) else {
            FileHandle.standardError.write(Data("locus \(command): \(program) not found in \(directory) (build it with `swift build`)\n".utf8))
            return 69
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        FileHandle.standardError.write(Data("locus \(command): cannot run \(path): \(String(cString: strerror(errno)))\n".utf8))
        return 69
    }
}
