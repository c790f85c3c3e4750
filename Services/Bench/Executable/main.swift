import Foundation
import LocusBench

// locus-bench: every benchmark beside its peer (`locus bench` hands over to this program).
exit(BenchCommand.run(Array(CommandLine.arguments.dropFirst())))
