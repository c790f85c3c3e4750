import Foundation
import LocusGeo

/// Renders a `PlotScene` as a self-contained SVG: no tiles, no network, a local metric
/// projection around the scene's centre, a coordinate grid and a scale bar.
struct SVGMap {
    var width = 1000.0
    var height = 800.0
    var margin = 40.0
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]

    func render(_ scene: PlotScene, title: String) -> String {
        let points = scene.tracks.values.flatMap { $0.map(\.coordinate) } + scene.events.map(\.coordinate)
            + scene.regions.values.flatMap(regionExtent)
        guard let first = points.first else { return emptySVG(title) }
        var minLat = first.lat, maxLat = first.lat, minLon = first.lon, maxLon = first.lon
        for p in points {
            minLat = min(minLat, p.lat); maxLat = max(maxLat, p.lat)
            minLon = min(minLon, p.lon); maxLon = max(maxLon, p.lon)
        }
        let plane = LocalTangentPlane(origin: Coordinate(lat: (minLat + maxLat) / 2, lon: (minLon + maxLon) / 2))
        let corners = [plane.project(Coordinate(lat: minLat, lon: minLon)), plane.project(Coordinate(lat: maxLat, lon: maxLon))]
        let spanEast = max(corners[1].east - corners[0].east, 50)
        let spanNorth = max(corners[1].north - corners[0].north, 50)
        let scale = min((width - 2 * margin) / spanEast, (height - 2 * margin) / spanNorth) * 0.92
        let project = { (c: Coordinate) -> (x: Double, y: Double) in
            let p = plane.project(c)
            return (self.width / 2 + p.east * scale, self.height / 2 - p.north * scale)
        }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
        <title>\(escape(title))</title>
        <rect width="100%" height="100%" fill="#fbfbf8"/>

        """
        svg += grid(minLat: minLat, maxLat: maxLat, minLon: minLon, maxLon: maxLon, project: project)
        for (name, outline) in scene.regions.sorted(by: { $0.key < $1.key }) {
            svg += region(name: name, outline: outline, project: project, scale: scale)
        }
        for (index, (device, fixes)) in scene.tracks.sorted(by: { $0.key < $1.key }).enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let step = max(1, fixes.count / 60)
            for fix in fixes.enumerated().filter({ $0.offset % step == 0 }).map(\.element) {
                let p = project(fix.coordinate)
                svg += "<circle class=\"accuracy\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"\(f(max(1, fix.haccMeters * scale)))\" fill=\"\(colour)\" fill-opacity=\"0.06\" stroke=\"\(colour)\" stroke-opacity=\"0.25\"/>\n"
            }
            let path = fixes.map { project($0.coordinate) }.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
            svg += "<polyline class=\"track\" data-device=\"\(escape(device))\" points=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            if let last = fixes.last {
                let p = project(last.coordinate)
                svg += "<circle cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"5\" fill=\"\(colour)\"/>\n"
                svg += "<text x=\"\(f(p.x + 8))\" y=\"\(f(p.y - 8))\" fill=\"\(colour)\">\(escape(device))</text>\n"
            }
        }
        for event in scene.events {
            let p = project(event.coordinate)
            let colour = event.kind == .enter ? "#2ca02c" : event.kind == .exit ? "#d62728" : "#ff7f0e"
            svg += "<g class=\"event\"><path d=\"M\(f(p.x)),\(f(p.y - 10)) l6,10 l-12,0 z\" fill=\"\(colour)\" stroke=\"#222\" stroke-width=\"0.6\"/>"
            svg += "<text x=\"\(f(p.x + 8))\" y=\"\(f(p.y + 14))\" fill=\"#222\">\(escape(event.label))</text></g>\n"
        }
        svg += scaleBar(scale: scale)
        svg += "<text x=\"\(f(margin))\" y=\"22\" font-size=\"15\" fill=\"#222\">\(escape(title))</text>\n</svg>\n"
        return svg
    }

    private func regionExtent(_ outline: PlotScene.Outline) -> [Coordinate] {
        switch outline {
        case let .circle(center, radius):
            return [0.0, 90, 180, 270].map { Geodesic.destination(from: center, azimuthDegrees: $0, distanceMeters: radius) }
        case let .rings(rings): return rings.flatMap { $0 }
        }
    }

    private func region(name: String, outline: PlotScene.Outline, project: (Coordinate) -> (x: Double, y: Double),
                        scale: Double) -> String {
        let style = "fill=\"#7f7f7f\" fill-opacity=\"0.12\" stroke=\"#555\" stroke-dasharray=\"6 3\""
        var out: String
        var label: (x: Double, y: Double)
        switch outline {
        case let .circle(center, radius):
            let p = project(center)
            out = "<circle class=\"region\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"\(f(radius * scale))\" \(style)/>\n"
            label = (p.x, p.y - radius * scale - 4)
        case let .rings(rings):
            let d = rings.map { ring in "M" + ring.map { let p = project($0); return "\(f(p.x)),\(f(p.y))" }.joined(separator: " L") + " Z" }
            out = "<path class=\"region\" d=\"\(d.joined(separator: " "))\" fill-rule=\"evenodd\" \(style)/>\n"
            label = rings.first?.first.map(project) ?? (0, 0)
        }
        out += "<text x=\"\(f(label.x))\" y=\"\(f(label.y))\" fill=\"#555\" text-anchor=\"middle\">\(escape(name))</text>\n"
        return out
    }

    private func grid(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double,
                      project: (Coordinate) -> (x: Double, y: Double)) -> String {
        let span = max(maxLat - minLat, maxLon - minLon, 1e-4)
        // A 1-2-5 step that gives about ten lines across the larger side, so labels never crowd.
        let rough = span / 10
        let magnitude = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        var out = ""
        var lat = (minLat / step).rounded(.down) * step
        while lat <= maxLat + step {
            let y = project(Coordinate(lat: lat, lon: minLon)).y
            if y > 0 && y < height {
                out += "<line x1=\"0\" y1=\"\(f(y))\" x2=\"\(f(width))\" y2=\"\(f(y))\" stroke=\"#ddd\"/><text x=\"4\" y=\"\(f(y - 2))\" fill=\"#999\" font-size=\"10\">\(label(lat, step))</text>\n"
            }
            lat += step
        }
        var lon = (minLon / step).rounded(.down) * step
        while lon <= maxLon + step {
            let x = project(Coordinate(lat: minLat, lon: lon)).x
            if x > 0 && x < width {
                out += "<line x1=\"\(f(x))\" y1=\"0\" x2=\"\(f(x))\" y2=\"\(f(height))\" stroke=\"#ddd\"/><text x=\"\(f(x + 2))\" y=\"\(f(height - 4))\" fill=\"#999\" font-size=\"10\">\(label(lon, step))</text>\n"
            }
            lon += step
        }
        return out
    }

    /// Only as many decimals as the grid step needs.
    private func label(_ value: Double, _ step: Double) -> String {
        String(format: "%.\(max(0, Int(-floor(log10(step)))))f", value)
    }

    private func scaleBar(scale: Double) -> String {
        let target = 150 / scale
        let metres = [1.0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000].last { $0 <= target } ?? 1
        let length = metres * scale
        let x = width - margin - length
        let y = height - margin
        let label = metres >= 1000 ? "\(Int(metres / 1000)) km" : "\(Int(metres)) m"
        return "<g class=\"scale\"><line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + length))\" y2=\"\(f(y))\" stroke=\"#222\" stroke-width=\"3\"/><text x=\"\(f(x))\" y=\"\(f(y - 6))\" fill=\"#222\">\(label)</text></g>\n"
    }

    private func emptySVG(_ title: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\"><title>\(escape(title))</title><text x=\"20\" y=\"40\">no positions in the input</text></svg>\n"
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
