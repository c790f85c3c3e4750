public import LocusNet

/// What the exporter's HTTP server answers, without a socket: `/metrics` (the exposition),
/// `/healthz` (liveness: this process answers) and `/readyz` (readiness: the bus is being
/// read); GET and HEAD only.
public struct MetricsRouter: Sendable {
    public let board: MetricsBoard

    public init(board: MetricsBoard) {
        self.board = board
    }

    public func answer(_ request: HTTPRequest, now: Double) -> HTTPResponse {
        guard request.head.method == "GET" || request.head.method == "HEAD" else {
            return .text(405, "only GET is served", extraHeaders: [("Allow", "GET, HEAD")])
        }
        switch request.head.path {
        case "/metrics":
            return HTTPResponse(status: 200, headers: [("Content-Type", Exposition.contentType)],
                                body: Array(board.exposition(now: now).text.utf8))
        case "/healthz":
            return .text(200, "alive")
        case "/readyz":
            return board.isReady(now: now) ? .text(200, "ready") : .text(503, "no message from the bus in the last 10 s")
        default:
            return .text(404, "not found: try /metrics, /healthz or /readyz")
        }
    }
}
