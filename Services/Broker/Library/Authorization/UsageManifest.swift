import Foundation

/// A client's usage descriptions, the analog of Info.plist's location keys: a request
/// for a level without its description fails with a clear error (iOS fails silently).
public struct UsageManifest: Sendable, Equatable {
    public var whenInUse: String?
    public var always: String?
    /// Purpose key → text, for temporary full accuracy.
    public var temporaryFull: [String: String]

    public init(whenInUse: String? = nil, always: String? = nil, temporaryFull: [String: String] = [:]) {
        self.whenInUse = whenInUse
        self.always = always
        self.temporaryFull = temporaryFull
    }

    /// The text shown to the person for a request, or why the request fails (iOS would fail silently).
    public func description(for level: String, purpose: String?) -> Result<String, RequestError> {
        switch level {
        case "whenInUse":
            return whenInUse.map { .success($0) } ?? .failure(RequestError(code: "missingUsageDescription", message: "no whenInUse description"))
        case "always":
            return always.map { .success($0) } ?? .failure(RequestError(code: "missingUsageDescription", message: "no always description"))
        default:
            guard let purpose, let text = temporaryFull[purpose] else {
                return .failure(RequestError(code: "unknownPurposeKey", message: "'\(purpose ?? "")' is not a temporaryFull purpose key"))
            }
            return .success(text)
        }
    }

    /// A request the manifest cannot support, with its `error.bus` code.
    public struct RequestError: Error, Sendable, Equatable {
        public var code: String
        public var message: String
    }

    /// Parses the JSON object form; unknown keys and empty texts are errors, so a typo is caught at load.
    public static func parse(_ value: Any) throws(ManifestError) -> UsageManifest {
        guard let object = value as? [String: Any] else { throw ManifestError("the manifest must be a JSON object") }
        var manifest = UsageManifest()
        for (key, item) in object {
            switch key {
            case "whenInUse": manifest.whenInUse = try text(item, key)
            case "always": manifest.always = try text(item, key)
            case "temporaryFull":
                guard let purposes = item as? [String: Any] else { throw ManifestError("temporaryFull must map purpose keys to texts") }
                for (purpose, description) in purposes {
                    guard !purpose.isEmpty else { throw ManifestError("an empty purpose key") }
                    manifest.temporaryFull[purpose] = try text(description, "temporaryFull.\(purpose)")
                }
            default: throw ManifestError("unknown manifest key '\(key)' (expected whenInUse, always, temporaryFull)")
            }
        }
        return manifest
    }

    private static func text(_ value: Any, _ key: String) throws(ManifestError) -> String {
        guard let string = value as? String, !string.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ManifestError("\(key) must be a non-empty text")
        }
        return string
    }
}

public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
