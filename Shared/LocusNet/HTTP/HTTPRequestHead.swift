/// The parts of an HTTP/1.x request head a server looks at; the body, when a server reads
/// one, travels beside it in `HTTPRequest`.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The request target as sent, e.g. `/events?x=1`.
    public var target: String
    public var version: String
    /// Header names lower-cased; a repeated header keeps its last value.
    public var headers: [String: String]

    public init(method: String, target: String, version: String, headers: [String: String]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The query string of the target (after `?`, before `#`), or nil when there is none.
    public var query: Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return target[target.index(after: mark)...].prefix { $0 != "#" }
    }

    /// The target without its query string or fragment.
    public var path: String {
        String(target.prefix(while: { $0 != "?" && $0 != "#" }))
    }
}
