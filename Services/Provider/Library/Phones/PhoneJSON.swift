import Foundation

/// Decodes a phone's JSON report with `JSONDecoder` (strict: a string where a number belongs
/// is an error, unknown fields are ignored) and turns its errors into refusals that name
/// the field, so an operator reading `error.provider` knows what the phone sent wrong.
enum PhoneJSON {
    static let maximumBytes = 64 * 1024

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws(PhoneRefusal) -> T {
        guard bytes.count <= maximumBytes else {
            throw PhoneRefusal(.malformed, "\(what) of \(bytes.count) bytes is larger than \(maximumBytes)")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw refusal(error, what: what)
        } catch {
            throw PhoneRefusal(.malformed, "\(what) is not JSON: \(error)")
        }
    }

    static func refusal(_ error: DecodingError, what: String) -> PhoneRefusal {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return PhoneRefusal(.missingField, "\(what) has no '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)'")
        case .valueNotFound(_, let context):
            return PhoneRefusal(.missingField, "\(what): '\(path(context))' is null")
        case .typeMismatch(let type, let context):
            let expected = type == String.self ? "a string" : (type == Double.self || type == Int.self) ? "a number" : "\(type)"
            return PhoneRefusal(.malformed, "\(what): '\(path(context))' must be \(expected)")
        case .dataCorrupted(let context):
            let field = path(context)
            let reason = (context.underlyingError as NSError?)?.localizedDescription ?? context.debugDescription
            return PhoneRefusal(.malformed, field.isEmpty ? "\(what) is not valid JSON (\(reason))" : "\(what): '\(field)' \(context.debugDescription)")
        @unknown default:
            return PhoneRefusal(.malformed, "\(what) cannot be read: \(error)")
        }
    }
}
