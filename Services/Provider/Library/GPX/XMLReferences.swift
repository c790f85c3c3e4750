/// Character and entity references (`&#233;`, `&#xE9;`, `&amp;`) as XML 1.0 defines them
/// without a DTD: the five predefined entities and numeric references to characters XML
/// allows. Nothing else is expanded, so no input can make a reference grow (no
/// "billion laughs", no external entities).
enum XMLReferences {
    /// Why a reference is not one.
    struct Problem: Error {
        let message: String
    }

    /// Longest entity name looked at; the predefined ones have at most four letters.
    static let maximumNameBytes = 32

    /// Reads the reference whose `&` is at `index`. Returns the offset just past its `;`
    /// and the Unicode scalar it stands for.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws(Problem) -> (end: Int, scalar: UInt32) {
        var cursor = index + 1
        if cursor < bytes.count, bytes[cursor] == 0x23 {  // "#"
            cursor += 1
            var radix: UInt32 = 10
            if cursor < bytes.count, bytes[cursor] == 0x78 {  // "x"
                radix = 16
                cursor += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while cursor < bytes.count, let digit = digitValue(bytes[cursor], radix: radix) {
                value = value * radix + digit
                digits += 1
                cursor += 1
                guard value <= 0x10FFFF else { throw Problem(message: "character reference beyond U+10FFFF") }
            }
            guard digits > 0, cursor < bytes.count, bytes[cursor] == 0x3B else {
                throw Problem(message: "character reference without digits and ';'")
            }
            guard isXMLCharacter(value) else {
                throw Problem(message: "character reference to U+\(String(value, radix: 16, uppercase: true)), which XML does not allow")
            }
            return (cursor + 1, value)
        }
        let nameStart = cursor
        while cursor < bytes.count, cursor - nameStart < maximumNameBytes, XMLNameCharacters.isNameByte(bytes[cursor]) {
            cursor += 1
        }
        guard cursor > nameStart, cursor < bytes.count, bytes[cursor] == 0x3B else {
            throw Problem(message: "'&' that does not start a reference (write &amp;)")
        }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<cursor])
        guard let scalar = predefined(name) else {
            throw Problem(message: "undefined entity &\(String(decoding: name, as: UTF8.self));")
        }
        return (cursor + 1, scalar)
    }

    /// Appends `raw` to `output`, replacing references when `expandReferences` and
    /// normalising line ends (CR LF and lone CR become LF; in an attribute value tab,
    /// CR and LF become a space). `raw` must have passed `read` for every `&` in it.
    static func decode(_ raw: UnsafeBufferPointer<UInt8>, expandReferences: Bool, attributeValue: Bool,
                       into output: inout [UInt8]) {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            switch byte {
            case 0x26 where expandReferences:
                if let (end, scalar) = try? read(raw, at: index) {
                    appendUTF8(scalar, to: &output)
                    index = end
                    continue
                }
                output.append(byte)
            case 0x0D:
                if index + 1 < raw.count, raw[index + 1] == 0x0A { index += 1 }
                output.append(attributeValue ? 0x20 : 0x0A)
            case 0x09, 0x0A:
                output.append(attributeValue ? 0x20 : byte)
            default:
                output.append(byte)
            }
            index += 1
        }
    }

    private static func predefined(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        if XMLName.equal(name, "lt") { return 0x3C }
        if XMLName.equal(name, "gt") { return 0x3E }
        if XMLName.equal(name, "amp") { return 0x26 }
        if XMLName.equal(name, "apos") { return 0x27 }
        if XMLName.equal(name, "quot") { return 0x22 }
        return nil
    }

    private static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46 where radix == 16: UInt32(byte - 0x41 + 10)
        case 0x61...0x66 where radix == 16: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }

    /// XML 1.0's `Char` production.
    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

/// The bytes XML names are made of. Non-ASCII bytes are accepted as name characters:
/// `XMLCharacterCheck` has already ensured they form valid UTF-8, and GPX names are ASCII,
/// so the finer Unicode classes of the XML grammar would only reject exotic names.
enum XMLNameCharacters {
    @inline(__always)
    static func isNameStartByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || byte == 0x3A || byte >= 0x80
    }

    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStartByte(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }
}
