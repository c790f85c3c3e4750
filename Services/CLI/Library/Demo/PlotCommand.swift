import Foundation
import LocusBus
import LocusService
import LocusGeo

/// `locus plot`: a recorded text-form stream (`locus tail > run.log`) to an SVG map.
enum PlotCommand {
    static let spec = CommandLineSpec(
        program: "locus plot",
        summary: "draw a recorded stream as an SVG map: tracks, accuracy, regions, events",
        usage: "locus plot [FILE...] [--output FILE.svg] [--datum wgs84|gcj02|bd09]",
        options: [
            OptionSpec("--output", value: "FILE", help: "where to write the SVG (default: stdout)"),
            OptionSpec("--datum", value: "DATUM", help: "draw in this datum (gcj02/bd09 to overlay Chinese maps)", default: "wgs84"),
            OptionSpec("--title", value: "TEXT", help: "title drawn on the map", default: "Locus"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Reads the files named (or stdin) in the text form: TOPIC, a space, the JSON body. Lines that are not are counted and skipped.")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        guard let datum = MapDatum(rawValue: options.string("--datum") ?? "wgs84") else {
            ServiceProgram.usageFailure("locus plot", "--datum must be wgs84, gcj02 or bd09")
        }
        var scene = PlotScene()
        if options.positionals.isEmpty {
            while let line = readLine() { scene.add(line: Substring(line), datum: datum) }
        } else {
            for path in options.positionals {
                guard let data = FileManager.default.contents(atPath: path) else {
                    ServiceProgram.usageFailure("locus plot", "cannot read '\(path)'")
                }
                for line in String(decoding: data, as: UTF8.self).split(separator: "\n") { scene.add(line: line, datum: datum) }
            }
        }
        scene.preferFused()
        if scene.skippedLines > 0 {
            FileHandle.standardError.write(Data("locus plot: skipped \(scene.skippedLines) line(s) that are not text-form messages\n".utf8))
        }
        let svg = SVGMap().render(scene, title: options.string("--title") ?? "Locus")
        if let output = options.string("--output") {
            do { try Data(svg.utf8).write(to: URL(fileURLWithPath: output)) } catch {
                FileHandle.standardError.write(Data("locus plot: cannot write '\(output)': \(error.localizedDescription)\n".utf8))
                return 73
            }
            FileHandle.standardError.write(Data("locus plot: wrote \(output)\n".utf8))
        } else {
            print(svg, terminator: "")
        }
        return scene.isEmpty ? 65 : 0
    }
}
