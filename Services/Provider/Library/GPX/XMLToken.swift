/// The pieces `XMLTokenizer` hands out. They point into the tokenizer's input buffer
/// instead of copying it, so they are valid only while that buffer is; a reader keeps
/// the few values it needs by decoding them (`string`, `appendDecoded(to:)`).

/// An element or attribute name as written, with the part after the last colon: GPX
/// readers match local names so that any prefix (`<gpx:trkpt>`) or none works.
struct XMLName {
    /// The name as written, e.g. `gpx:trkpt`.
    let qualified: UnsafeBufferPointer<UInt8>
    /// The name without its prefix, e.g. `trkpt`.
    let local: UnsafeBufferPointer<UInt8>
    /// Offset of the name's first byte in the input, for positions in messages.
    let offset: Int

    init(qualified: UnsafeBufferPointer<UInt8>, offset: Int) {
        self.qualified = qualified
        self.offset = offset
        var colon = -1
        for index in qualified.indices where qualified[index] == 0x3A { colon = index }
        let local = UnsafeBufferPointer(rebasing: qualified[(colon + 1)...])
        self.local = local.isEmpty ? qualified : local
    }

    var string: String { String(decoding: qualified, as: UTF8.self) }
    var localString: String { String(decoding: local, as: UTF8.self) }

    /// Whether the two names are written with the same bytes (how XML matches end tags).
    func sameQualifiedName(as other: XMLName) -> Bool { qualified.elementsEqual(other.qualified) }

    /// Whether the qualified name is exactly `name` (an ASCII literal).
    func isQualified(_ name: StaticString) -> Bool { Self.equal(qualified, name) }

    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != pointer[index] { return false }
        return true
    }
}

/// Character data: a run of text or one CDATA section. References (`&amp;`, `&#233;`)
/// were checked when the run was read and are replaced only when it is decoded.
struct XMLText {
    /// The bytes as written (for CDATA, the content between `<![CDATA[` and `]]>`).
    let raw: UnsafeBufferPointer<UInt8>
    /// True for a CDATA section, whose bytes are literal.
    let isCDATA: Bool
    /// True when the run holds at least one `&…;` reference.
    let hasReferences: Bool

    /// Appends the text with references replaced and line ends normalised to LF, as an
    /// XML processor must hand text to its application.
    func appendDecoded(to output: inout [UInt8]) {
        XMLReferences.decode(raw, expandReferences: hasReferences && !isCDATA, attributeValue: false, into: &output)
    }
}

/// One attribute of the start tag just read.
struct XMLAttribute {
    let name: XMLName
    /// The value between the quotes, as written.
    let rawValue: UnsafeBufferPointer<UInt8>
    let hasReferences: Bool

    /// The value with references replaced and whitespace characters turned into spaces
    /// (XML's attribute-value normalisation for CDATA attributes).
    var value: String {
        var output: [UInt8] = []
        output.reserveCapacity(rawValue.count)
        appendDecodedValue(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// `value` appended to a buffer the caller reuses.
    func appendDecodedValue(to output: inout [UInt8]) {
        XMLReferences.decode(rawValue, expandReferences: hasReferences, attributeValue: true, into: &output)
    }
}

/// What `XMLTokenizer.next()` returns, in document order.
enum XMLToken {
    /// A start tag; its attributes are in `XMLTokenizer.attributes` until the next call.
    /// An empty-element tag (`<wpt …/>`) is reported as a start tag followed by an end tag.
    case startTag(XMLName)
    case endTag(XMLName)
    case text(XMLText)
    /// A processing instruction other than the XML declaration, which is consumed.
    case processingInstruction(target: XMLName, data: UnsafeBufferPointer<UInt8>)
}

/// Why the input is not well-formed XML, and where: line and column count from 1, the
/// column in characters.
struct XMLSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    var message: String
    var line: Int
    var column: Int

    var description: String { "line \(line), column \(column): \(message)" }
}
