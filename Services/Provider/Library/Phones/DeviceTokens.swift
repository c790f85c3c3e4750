import Foundation
import LocusProtocol

/// The per-device secrets of the HTTP door: a file of `DEVICE TOKEN` lines (`#` starts a
/// comment). A device not in the file is unknown; a known device must send its token.
/// Tokens are compared in constant time, so response timing says nothing about them.
public struct DeviceTokens: Sendable, Equatable {
    private let tokens: [String: [UInt8]]

    public init(_ tokens: [String: String]) {
        self.tokens = tokens.mapValues { Array($0.utf8) }
    }

    /// Reads a token file; a malformed line, a repeated device or a short token is an error with its line number.
    public init(contentsOf path: String) throws(PhoneRefusal) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PhoneRefusal(.malformed, "cannot read the token file \(path)")
        }
        var tokens: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if content.isEmpty { continue }
            guard content.count == 2 else { throw PhoneRefusal(.malformed, "\(path):\(number + 1): expected 'DEVICE TOKEN'") }
            let device = String(content[0])
            guard Topic.isValidID(device) else { throw PhoneRefusal(.badDevice, "\(path):\(number + 1): '\(device)' is not a valid device id") }
            guard tokens[device] == nil else { throw PhoneRefusal(.malformed, "\(path):\(number + 1): \(device) is listed twice") }
            guard content[1].utf8.count >= 16 else {
                throw PhoneRefusal(.malformed, "\(path):\(number + 1): the token of \(device) is shorter than 16 characters")
            }
            tokens[device] = String(content[1])
        }
        self.init(tokens)
    }

    public var devices: Set<String> { Set(tokens.keys) }

    /// Nil when `token` is `device`'s; otherwise the refusal (unknown device, or no or wrong token).
    public func check(device: String, token: String?) -> PhoneRefusal? {
        guard let expected = tokens[device] else {
            return PhoneRefusal(.unknownDevice, "device \(device) is not in the token file")
        }
        guard let token else { return PhoneRefusal(.unauthenticated, "device \(device) sent no token") }
        return Self.equal(expected, Array(token.utf8)) ? nil : PhoneRefusal(.unauthenticated, "device \(device) sent a wrong token")
    }

    /// Compares every byte whatever the first difference.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
