@testable import LocusProtocol
import XCTest

/// The broken bodies generated from the specs: missing fields, wrong JSON types, broken ranges, bad syntax.
extension MalformedBodyTests {

    static func wrongTypes(for kind: Kind) -> [JSONValue] {
        switch kind {
        case .text, .id, .word: return [.number(5), .bool(true), .array([]), .object([:])]
        case .number: return [.string("1"), .bool(false), .array([]), .object([:])]
        case .integer: return [.string("1"), .bool(false), .number(2.5), .object([:])]
        case .flag: return [.string("true"), .number(1), .array([])]
        case .object: return [.number(1), .string("x"), .array([])]
        case .array: return [.number(1), .string("x"), .object([:])]
        }
    }

    static func bytes(_ tree: [String: JSONValue], replacing field: [String], with raw: String) -> [UInt8] {
        let marked = JSONValue.object(tree).setting(field[...], to: .string("@@RAW@@")).objectValue!
        let text = String(decoding: Samples.bytes(marked), as: UTF8.self)
        return Array(text.replacingOccurrences(of: "\"@@RAW@@\"", with: raw).utf8)
    }

    static func fieldCases(_ body: Body, _ fields: [Field]) -> [Case] {
        let tree = Samples.tree(body)
        var cases: [Case] = []
        func add(_ name: String, _ path: [String], _ value: JSONValue?, _ code: ProtocolError.Code, _ field: String?) {
            let mutated = JSONValue.object(tree).setting(path[...], to: value).objectValue!
            cases.append(Case(name: name, body: Samples.bytes(mutated), code: code, field: field))
        }
        for field in fields {
            if field.required { add("\(field.dotted) missing", field.path, nil, .missingField, field.dotted) }
            if field.required && field.kind != .object { add("\(field.dotted) null", field.path, .null, .wrongType, field.dotted) }
            for wrong in wrongTypes(for: field.kind) {
                add("\(field.dotted) = \(wrong.shortDescription)", field.path, wrong, .wrongType, field.dotted)
            }
            if field.kind == .id {
                for bad in ["", "a b", "tab\there", "new\nline", String(repeating: "x", count: 201)] {
                    add("\(field.dotted) = invalid id \(bad.debugDescription)", field.path, .string(bad), .invalidValue, field.dotted)
                }
            }
            if field.kind == .word {
                for bad in ["sideways", "", "ENTER"] {
                    add("\(field.dotted) = unknown word \(bad)", field.path, .string(bad), .invalidValue, field.dotted)
                }
            }
            if field.kind == .number || field.kind == .integer {
                for raw in ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"] {
                    cases.append(Case(name: "\(field.dotted) = \(raw)", body: bytes(tree, replacing: field.path, with: raw), code: .notFinite, field: field.dotted))
                }
            }
            for (value, code, path) in field.bad {
                add("\(field.dotted) = \(value.shortDescription)", field.path, value, code, path ?? field.dotted)
            }
        }
        return cases
    }

    /// Envelope and syntax faults, the same for every type.
    static func commonCases(_ body: Body) -> [Case] {
        let tree = Samples.tree(body)
        let valid = Samples.bytes(tree)
        var cases: [Case] = []
        func add(_ name: String, _ key: String, _ value: JSONValue?, _ code: ProtocolError.Code, _ field: String?) {
            var mutated = tree
            mutated[key] = value
            cases.append(Case(name: name, body: Samples.bytes(mutated), code: code, field: field))
        }
        for key in ["v", "type", "id", "t", "src"] { add("envelope \(key) missing", key, nil, .missingField, key) }
        add("v = 2", "v", .number(2), .unsupportedVersion, "v")
        add("v = 0", "v", .number(0), .unsupportedVersion, "v")
        add("v = \"1\"", "v", .string("1"), .wrongType, "v")
        add("v = 1.5", "v", .number(1.5), .wrongType, "v")
        add("type = 5", "type", .number(5), .wrongType, "type")
        add("id = \"\"", "id", .string(""), .invalidValue, "id")
        add("id = 7", "id", .number(7), .wrongType, "id")
        add("t = -1", "t", .number(-1), .outOfRange, "t")
        add("t = \"now\"", "t", .string("now"), .wrongType, "t")
        add("src = \"\"", "src", .string(""), .invalidValue, "src")
        add("src = null", "src", .null, .wrongType, "src")
        add("seq = -1", "seq", .number(-1), .outOfRange, "seq")
        add("seq = 1.5", "seq", .number(1.5), .wrongType, "seq")
        add("seq = \"1\"", "seq", .string("1"), .wrongType, "seq")
        cases.append(Case(name: "t = NaN", body: bytes(tree, replacing: ["t"], with: "NaN"), code: .notFinite, field: "t"))
        cases.append(Case(name: "t = 1e999", body: bytes(tree, replacing: ["t"], with: "1e999"), code: .notFinite, field: "t"))

        let text = String(decoding: valid, as: UTF8.self)
        func syntax(_ name: String, _ text: String, _ code: ProtocolError.Code = .invalidJSON) {
            cases.append(Case(name: name, body: Array(text.utf8), code: code, field: nil))
        }
        syntax("truncated in the middle", String(text.prefix(text.count / 2)))
        syntax("last brace missing", String(text.dropLast()))
        syntax("trailing garbage", text + "x")
        syntax("two objects", text + text)
        syntax("trailing comma", String(text.dropLast()) + ",}")
        syntax("single quotes", text.replacingOccurrences(of: "\"", with: "'"))
        syntax("empty body", "")
        syntax("whitespace only", " \n ")
        syntax("array of the body", "[" + text + "]", .notAnObject)
        syntax("a string", "\"" + body.type + "\"", .notAnObject)
        syntax("a number", "42", .notAnObject)
        syntax("null", "null", .notAnObject)
        syntax("raw control character in a string", String(text.dropLast()) + ",\"note\":\"a\u{01}b\"}")
        syntax("bad escape", String(text.dropLast()) + ",\"note\":\"a\\qb\"}")
        syntax("lone surrogate", String(text.dropLast()) + ",\"note\":\"\\ud800\"}")
        syntax("leading zero", String(text.dropLast()) + ",\"note\":012}")
        syntax("bare word", String(text.dropLast()) + ",\"note\":yes}")
        var invalidUTF8 = Array(text.dropLast().utf8)
        invalidUTF8 += Array(",\"note\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        cases.append(Case(name: "invalid UTF-8", body: invalidUTF8, code: .invalidJSON, field: nil))
        let padding = String(repeating: "x", count: MessageCodec.maximumBodyBytes)
        syntax("larger than 1 MiB", String(text.dropLast()) + ",\"pad\":\"\(padding)\"}", .tooLarge)
        return cases
    }

}
