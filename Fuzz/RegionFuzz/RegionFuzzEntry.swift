// libFuzzer entry for region shapes: compiled with the LocusProtocol and LocusGeo sources
// (see ../build-target.sh).

/// Two views of the input. As a body: a decoded `region.add` is built into a LocusGeo
/// shape, which must not trap, and whose containment and signed distance agree for probe
/// points. As raw numbers: the bytes become the positions of a ring (and a circle), so
/// NaN, infinities, huge and degenerate rings reach the validators directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func regionFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let message = try? MessageCodec.decode(bytes) {
        switch message.body {
        case .regionAdd(let add): RegionProperties.check(add.region.shape)
        case .regionAdded(let added): RegionProperties.check(added.region.shape)
        case .regionList(let list): list.regions.prefix(8).forEach { RegionProperties.check($0.shape) }
        default: break
        }
    }
    RegionProperties.checkRawRing(bytes)
    return 0
}

enum RegionProperties {
    /// A decoded shape passed protocol validation; building it either succeeds or reports
    /// a reason, and a built shape answers finitely and consistently.
    static func check(_ regionShape: RegionShape) {
        switch RegionShapeBuilding.build(regionShape) {
        case .failure(let error):
            precondition(!error.message.isEmpty, "shape rejected without a reason")
        case .success(let shape):
            let probes = RegionShapeBuilding.probes(regionShape)
            for probe in probes { checkAnswers(shape, probe) }
            let box = shape.boundingBox
            checkAnswers(shape, Coordinate(lat: box.minLat, lon: box.minLon))
            checkAnswers(shape, Coordinate(lat: box.maxLat, lon: box.maxLon))
        }
    }

    static func checkAnswers(_ shape: Shape, _ p: Coordinate) {
        guard p.isValid else { return }
        let inside = shape.contains(p)
        let distance = shape.signedDistanceMeters(p)
        precondition(!distance.isNaN, "signed distance is NaN at \(p)")
        // Far from the boundary the two answers must agree; at it, either is allowed.
        if abs(distance) > 1 {
            precondition(inside == (distance < 0), "contains \(inside) but signed distance \(distance) m at \(p)")
        }
        if inside { precondition(shape.boundingBox.contains(p), "inside but outside its bounding box at \(p)") }
    }

    /// Reads 16-byte (lat, lon) pairs from the input and closes the ring.
    static func checkRawRing(_ bytes: UnsafeRawBufferPointer) {
        let pairs = min(bytes.count / 16, 512)
        guard pairs >= 1 else { return }
        var ring: [Coordinate] = []
        for index in 0..<pairs {
            let lat = bytes.loadUnaligned(fromByteOffset: index * 16, as: Double.self)
            let lon = bytes.loadUnaligned(fromByteOffset: index * 16 + 8, as: Double.self)
            ring.append(Coordinate(lat: lat, lon: lon))
        }
        if let circle = try? Circle.validated(center: ring[0], radiusMeters: ring.count > 1 ? ring[1].lat * 1000 : 100) {
            for p in ring.prefix(16) { checkAnswers(.circle(circle), p) }
        }
        ring.append(ring[0])
        if let polygon = try? Polygon(rings: [ring]) {
            for p in ring.prefix(16) { checkAnswers(.polygon(polygon), p) }
            let multi = MultiPolygon(polygons: [polygon])
            for p in ring.prefix(16) { checkAnswers(.multiPolygon(multi), p) }
        }
    }
}
