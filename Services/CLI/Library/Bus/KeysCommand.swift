import Foundation
import LocusBus
import LocusService

/// `locus keys gen NAME`: writes a CURVE keypair (NAME.key, mode 0600) and its public
/// half (NAME.pub) for a client or the bus; the public key goes into the allow-list.
enum KeysCommand {
    static let spec = CommandLineSpec(
        program: "locus keys",
        summary: "CURVE keys for a tcp bus",
        usage: "locus keys gen NAME [--dir DIR] | locus keys public FILE",
        options: [
            OptionSpec("--dir", value: "DIR", help: "where to write the files", default: "."),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "gen prints the public key; the secret key is only ever written to NAME.key (0600).")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let words = options.positionals
        guard words.count == 2 else { ServiceProgram.usageFailure("locus keys", "expected 'gen NAME' or 'public FILE'") }
        do {
            switch words[0] {
            case "gen":
                let pair = try CurveKeyPair.generate()
                let paths = try CurveKeyFile.write(pair, name: words[1], directory: options.string("--dir") ?? ".")
                FileHandle.standardError.write(Data("wrote \(paths.secret) (secret, 0600) and \(paths.public)\n".utf8))
                print(pair.publicKey)
            case "public":
                print(try CurveKeyFile.readPublicKey(path: words[1]))
            default:
                ServiceProgram.usageFailure("locus keys", "unknown action '\(words[0])'")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("locus keys: \(error)\n".utf8))
            return 1
        }
    }
}
