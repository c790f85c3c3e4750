import Foundation
public import LocusNet

/// Phones running Traccar Client or OsmAnd's online tracking: an HTTP server speaking
/// Traccar's OsmAnd protocol (`OsmAndReport`) that publishes each report's position as a
/// fix of the device it names, and answers as Traccar does — 200 with an empty body once
/// taken, 400 (404 for JSON) for an unknown device or a report it cannot read — plus 401
/// when a device's token (`DeviceTokens`) is missing or wrong. Requests are bounded
/// (`ServerLimits`); the server runs on the source's thread.
public struct OsmAndSource: PositionSource {
    public let listener: Listener
    public var limits: ServerLimits
    public var tokens: DeviceTokens?
    public var mapping: PhoneMapping
    public var allowed: Set<String>?
    public var maximumDevices: Int
    public let plugin = "osmand"
    public var namesItsDevices: Bool { true }

    public init(listener: Listener, limits: ServerLimits = Self.defaultLimits, tokens: DeviceTokens? = nil,
                mapping: PhoneMapping = PhoneMapping(), allowed: Set<String>? = nil, maximumDevices: Int = 1000) {
        self.listener = listener
        self.limits = limits
        self.tokens = tokens
        self.mapping = mapping
        self.allowed = allowed
        self.maximumDevices = maximumDevices
    }

    /// Small requests, quickly: a report is a few hundred bytes.
    public static let defaultLimits = ServerLimits().with {
        $0.maximumBodyBytes = 16 * 1024
        $0.maximumConnections = 256
        $0.requestTimeoutSeconds = 10
    }

    public func run(_ context: SourceContext) {
        let intake = PhoneIntake(plugin: plugin, mapping: mapping, allowed: allowed, maximumDevices: maximumDevices, context: context)
        context.status.set(.waiting, note: "listening for OsmAnd reports on \(listener.description)")
        let server = HTTPServer(listener: listener, limits: limits) { request in answer(request, intake: intake) }
        server.run(while: { !context.stop.isRaised })
        context.finish()
    }

    func answer(_ request: HTTPRequest, intake: PhoneIntake) -> HTTPResponse {
        intake.received()
        let report: OsmAndReport
        do { report = try OsmAndReport.read(request, now: Date().timeIntervalSince1970) } catch {
            return .text(400, intake.refuse(error).message)
        }
        let unknownStatus = report.format == .json ? 404 : 400
        if let tokens, let refusal = tokens.check(device: report.device, token: report.token) {
            intake.refuse(refusal)
            return refusal.code == .unknownDevice
                ? .text(unknownStatus, refusal.message)
                : .text(401, refusal.message, extraHeaders: [("WWW-Authenticate", "Bearer realm=\"locus\"")])
        }
        if let refusal = intake.admit(report.device) { return .text(unknownStatus, intake.refuse(refusal).message) }
        guard let fix = report.fix else {
            intake.ignore("noPosition")
            return HTTPResponse(status: 200)
        }
        if let refusal = intake.accept(fix) { return .text(400, refusal.message) }
        return HTTPResponse(status: 200)
    }
}
