/// A pull tokenizer for the XML that GPX files are: elements, attributes, text, CDATA,
/// the five predefined entities and numeric character references. It reads bytes, never
/// `Character`s, and copies nothing: tokens point into the input.
///
/// It checks well-formedness (one root, tags that nest and match, attribute syntax, no
/// duplicate attributes, references that resolve, no text outside the root) and fails
/// with the line and column of the problem. Comments and the XML declaration are
/// skipped; processing instructions are handed to the caller. A DOCTYPE without an
/// internal subset is skipped; one with an internal subset is refused, so no entity is
/// ever declared or expanded. Limits on names, attribute values, attributes per tag and
/// nesting keep hostile input from costing more than its size.
///
/// Why not Foundation's `XMLParser`: it is libxml2 underneath, which costs a shared
/// library and its start-up, crashed on `<?pi?>`, traps on names that are not UTF-8, and
/// runs at a few hundred inputs per second under a fuzzer.
///
/// The input buffer must stay valid while the tokenizer and its tokens are used.
struct XMLTokenizer {
    static let maximumDepth = 256
    static let maximumNameBytes = 1024
    static let maximumAttributeValueBytes = 65_536
    static let maximumAttributes = 256

    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the document starts (after a byte-order mark).
    let documentStart: Int
    var index: Int
    /// Elements open, innermost last.
    var open: [XMLName] = []
    /// The end tag owed for an empty-element tag just reported.
    var pendingEnd: XMLName?
    var rootStarted = false
    var rootEnded = false
    var sawDoctype = false
    /// The attributes of the most recent start tag.
    private(set) var attributes: [XMLAttribute] = []
    /// Offset of the first byte of the most recent token, for positions in messages.
    private(set) var tokenOffset = 0

    /// Checks the input's characters (`XMLCharacterCheck`) and skips a UTF-8 byte-order mark.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(XMLSyntaxError) {
        self.bytes = bytes
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        documentStart = hasBOM ? 3 : 0
        index = documentStart
        if let (offset, problem) = XMLCharacterCheck.firstProblem(in: bytes) {
            let message = switch problem {
            case .nul: "NUL byte: not a text file"
            case .controlCharacter(let byte): "control character 0x\(String(byte, radix: 16)), which XML does not allow"
            case .invalidUTF8: "invalid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)))"
            case .notAnXMLCharacter(let scalar): "character U+\(String(scalar, radix: 16, uppercase: true)), which XML does not allow"
            }
            throw failure(message, at: offset)
        }
    }

    /// The next token in document order, or nil after the root element has ended and
    /// only comments, processing instructions and whitespace followed.
    mutating func next() throws(XMLSyntaxError) -> XMLToken? {
        if let name = pendingEnd {
            pendingEnd = nil
            closeInnermost()
            return .endTag(name)
        }
        while index < bytes.count {
            tokenOffset = index
            guard bytes[index] == 0x3C else {  // "<"
                let text = try scanText()
                if open.isEmpty { continue }
                return .text(text)
            }
            guard index + 1 < bytes.count else { throw failure("input ends inside markup", at: index) }
            switch bytes[index + 1] {
            case 0x2F: return .endTag(try scanEndTag())  // "/"
            case 0x3F: if let token = try scanProcessingInstruction() { return token }  // "?"
            case 0x21: if let token = try scanDeclarationOrSection() { return token }  // "!"
            default: return .startTag(try scanStartTag())
            }
        }
        if let innermost = open.last {
            let opened = position(of: innermost.offset - 1)
            throw failure("input ends inside <\(innermost.string)> opened at line \(opened.line), column \(opened.column) (truncated file?)",
                          at: bytes.count)
        }
        guard rootStarted else { throw failure("no root element", at: bytes.count) }
        return nil
    }

    /// Line and column (from 1; the column in characters) of a byte offset.
    func position(of offset: Int) -> (line: Int, column: Int) {
        XMLPosition.of(offset: min(offset, bytes.count), in: bytes, from: documentStart)
    }

    func failure(_ message: String, at offset: Int) -> XMLSyntaxError {
        let (line, column) = position(of: offset)
        return XMLSyntaxError(message: message, line: line, column: column)
    }

    mutating func closeInnermost() {
        open.removeLast()
        if open.isEmpty { rootEnded = true }
    }

    // MARK: Text

    /// Character data up to the next `<`. Outside the root element only whitespace may
    /// appear; inside it, every `&` must start a reference and `]]>` may not appear.
    private mutating func scanText() throws(XMLSyntaxError) -> XMLText {
        let start = index
        var hasReferences = false
        let outside = open.isEmpty
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x3C { break }
            if outside, !XMLNameCharacters.isWhitespace(byte) {
                throw failure(rootStarted ? "text after the root element" : "text before the root element", at: index)
            }
            if byte == 0x26 {  // "&"
                do {
                    index = try XMLReferences.read(bytes, at: index).end
                } catch {
                    throw failure(error.message, at: index)
                }
                hasReferences = true
                continue
            }
            if byte == 0x5D, index + 2 < bytes.count, bytes[index + 1] == 0x5D, bytes[index + 2] == 0x3E {
                throw failure("']]>' in text (only allowed to end a CDATA section)", at: index)
            }
            index += 1
        }
        return XMLText(raw: UnsafeBufferPointer(rebasing: bytes[start..<index]), isCDATA: false, hasReferences: hasReferences)
    }

    // MARK: Names and tags

    /// Reads the name starting at `index`; `what` says where a name was expected.
    mutating func scanName(_ what: @autoclosure () -> String) throws(XMLSyntaxError) -> XMLName {
        let start = index
        guard index < bytes.count, XMLNameCharacters.isNameStartByte(bytes[index]) else {
            throw failure(index < bytes.count ? "\(what()) expected" : "input ends where \(what()) was expected", at: index)
        }
        index += 1
        while index < bytes.count, XMLNameCharacters.isNameByte(bytes[index]) {
            index += 1
            guard index - start <= Self.maximumNameBytes else {
                throw failure("name longer than \(Self.maximumNameBytes) bytes", at: start)
            }
        }
        return XMLName(qualified: UnsafeBufferPointer(rebasing: bytes[start..<index]), offset: start)
    }

    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, XMLNameCharacters.isWhitespace(bytes[index]) { index += 1 }
        return index > start
    }

    private mutating func scanStartTag() throws(XMLSyntaxError) -> XMLName {
        guard !rootEnded else { throw failure("a second root element", at: index) }
        guard open.count < Self.maximumDepth else {
            throw failure("elements nested deeper than \(Self.maximumDepth)", at: index)
        }
        index += 1
        let name = try scanName("an element name after '<'")
        attributes.removeAll(keepingCapacity: true)
        while true {
            let separated = skipWhitespace()
            guard index < bytes.count else { throw failure("input ends inside the start tag <\(name.string)>", at: index) }
            let byte = bytes[index]
            if byte == 0x3E {  // ">"
                index += 1
                break
            }
            if byte == 0x2F {  // "/"
                guard index + 1 < bytes.count, bytes[index + 1] == 0x3E else {
                    throw failure("'/' not followed by '>' in the start tag <\(name.string)>", at: index)
                }
                index += 2
                pendingEnd = name
                break
            }
            guard separated else { throw failure("no space before an attribute in <\(name.string)>", at: index) }
            try scanAttribute(of: name)
        }
        open.append(name)
        rootStarted = true
        return name
    }

    private mutating func scanAttribute(of element: XMLName) throws(XMLSyntaxError) {
        guard attributes.count < Self.maximumAttributes else {
            throw failure("more than \(Self.maximumAttributes) attributes in <\(element.string)>", at: index)
        }
        let name = try scanName("an attribute name in <\(element.string)>")
        skipWhitespace()
        guard index < bytes.count, bytes[index] == 0x3D else {  // "="
            throw failure("attribute \(name.string) without '=' in <\(element.string)>", at: index)
        }
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == 0x22 || bytes[index] == 0x27 else {
            throw failure("value of attribute \(name.string) not in quotes", at: index)
        }
        let quote = bytes[index]
        index += 1
        let start = index
        var hasReferences = false
        while true {
            guard index < bytes.count else { throw failure("input ends inside the value of attribute \(name.string)", at: start) }
            let byte = bytes[index]
            if byte == quote { break }
            if byte == 0x3C { throw failure("'<' in the value of attribute \(name.string)", at: index) }
            if byte == 0x26 {
                do {
                    index = try XMLReferences.read(bytes, at: index).end
                } catch {
                    throw failure(error.message, at: index)
                }
                hasReferences = true
            } else {
                index += 1
            }
            guard index - start <= Self.maximumAttributeValueBytes else {
                throw failure("value of attribute \(name.string) longer than \(Self.maximumAttributeValueBytes) bytes", at: start)
            }
        }
        let value = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        for earlier in attributes where earlier.name.sameQualifiedName(as: name) {
            throw failure("attribute \(name.string) appears twice in <\(element.string)>", at: name.offset)
        }
        attributes.append(XMLAttribute(name: name, rawValue: value, hasReferences: hasReferences))
    }

    private mutating func scanEndTag() throws(XMLSyntaxError) -> XMLName {
        index += 2
        let name = try scanName("an element name after '</'")
        skipWhitespace()
        guard index < bytes.count, bytes[index] == 0x3E else {
            throw failure(index < bytes.count ? "end tag </\(name.string)> not closed by '>'" : "input ends inside the end tag </\(name.string)>",
                          at: index)
        }
        index += 1
        guard let innermost = open.last else {
            throw failure("end tag </\(name.string)> without a start tag", at: name.offset)
        }
        guard innermost.sameQualifiedName(as: name) else {
            let opened = position(of: innermost.offset - 1)
            throw failure("end tag </\(name.string)> does not match <\(innermost.string)> opened at line \(opened.line), column \(opened.column)",
                          at: name.offset)
        }
        closeInnermost()
        return name
    }
}
