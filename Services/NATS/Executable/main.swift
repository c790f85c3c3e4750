import Foundation
import LocusService

// locus-nats: operating Locus on a NATS cluster (`locus nats …` hands over to this program,
// which links the bus's authorization so the command line does not).
let usage = """
locus nats — operate Locus on a NATS cluster (docs/nats.md)

Usage: locus nats COMMAND [options]

Commands:
  config    write the servers' authorization section from the bus's allow-list and authorization state

Every command takes --help.
"""

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "config": exit(NATSConfigCommand.run(Array(arguments.dropFirst())))
case "help", "--help", "-h", nil:
    print(usage, terminator: "")
    exit(arguments.isEmpty ? ServiceProgram.exitUsage : 0)
default:
    FileHandle.standardError.write(Data("locus nats: unknown command '\(arguments[0])'\n\n\(usage)".utf8))
    exit(ServiceProgram.exitUsage)
}
