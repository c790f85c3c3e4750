import Foundation
import LocusCLI

exit(LocusCommand.main(Array(CommandLine.arguments.dropFirst())))
