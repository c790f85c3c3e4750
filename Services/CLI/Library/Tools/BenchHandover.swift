import Foundation
import Glibc

/// `locus bench …` runs `locus-bench …` in its place: the benchmarks are a program of their
/// own, so the command line links no benchmark and no service it measures.
enum BenchHandover {
    static func run(_ arguments: [String]) -> Int32 {
        let directory = Supervisor.ownDirectory
        let path = directory + "/locus-bench"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            FileHandle.standardError.write(Data("locus bench: locus-bench not found in \(directory) (build it with `swift build`)\n".utf8))
            return 69
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        FileHandle.standardError.write(Data("locus bench: cannot run \(path): \(String(cString: strerror(errno)))\n".utf8))
        return 69
    }
}
