import Foundation

/// The `--count N` / `--help` argument list shared by the benches that take nothing else,
/// so each states only its name, default and what it counts.
enum BenchCountOption {
    /// The count to use, or the exit status when the arguments end the run (0 after
    /// `--help`, 64 with the reason on stderr for a bad argument).
    static func parse(_ arguments: [String], bench: String, defaultCount: Int, counting: String) -> Result<Int, ExitStatus> {
        let usage = "usage: locus bench \(bench) [--count N]   (default \(defaultCount) \(counting), best of 3)\n"
        var count = defaultCount
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--count":
                guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else {
                    FileHandle.standardError.write(Data("locus bench \(bench): --count needs a positive integer\n".utf8))
                    return .failure(ExitStatus(code: 64))
                }
                count = value
                index += 2
            case "--help", "-h":
                print(usage, terminator: "")
                return .failure(ExitStatus(code: 0))
            default:
                FileHandle.standardError.write(Data("locus bench \(bench): unknown argument \(arguments[index])\n\(usage)".utf8))
                return .failure(ExitStatus(code: 64))
            }
        }
        return .success(count)
    }

    /// How a bench's argument parsing ended the run.
    struct ExitStatus: Error {
        var code: Int32
    }
}
