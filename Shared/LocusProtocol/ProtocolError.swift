/// Why a body, topic or text line was rejected. Every rejection in this module is one of
/// these; `message` is for a person and names the field and the offending value.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidJSON, notAnObject, missingField, wrongType, outOfRange, notFinite,
            invalidValue, unsupportedVersion, invalidTopic, invalidTextLine, tooLarge
    }

    public var code: Code
    /// The JSON path of the offending field inside the body ("lat", "region.shape.radius"), if any.
    public var field: String?
    public var message: String

    public init(code: Code, field: String? = nil, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
