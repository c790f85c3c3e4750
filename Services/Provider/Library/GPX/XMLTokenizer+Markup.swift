/// The markup that is not an element: processing instructions and the XML declaration,
/// comments, CDATA sections and the document type declaration.
extension XMLTokenizer {
    /// `<?target data?>`. The XML declaration (`<?xml version=…?>`, only at the very
    /// start) is consumed and gives nil; any other instruction is returned.
    mutating func scanProcessingInstruction() throws(XMLSyntaxError) -> XMLToken? {
        let start = index
        index += 2
        let target = try scanName("a target name after '<?'")
        let dataStart: Int
        if index + 1 < bytes.count, bytes[index] == 0x3F, bytes[index + 1] == 0x3E {  // "?>"
            dataStart = index
        } else {
            guard skipWhitespace() else { throw failure("no space after the target <?\(target.string)", at: index) }
            dataStart = index
        }
        guard let end = find(0x3F, 0x3E, from: dataStart) else {
            throw failure("processing instruction <?\(target.string) never ends with '?>'", at: start)
        }
        let data = UnsafeBufferPointer(rebasing: bytes[dataStart..<end])
        index = end + 2
        guard isReservedXMLName(target.qualified) else {
            return .processingInstruction(target: target, data: data)
        }
        guard start == documentStart, target.isQualified("xml") else {
            throw failure("XML declaration <?\(target.string) not at the start of the input", at: start)
        }
        guard data.starts(with: "version".utf8) else {
            throw failure("XML declaration without a version", at: dataStart)
        }
        return nil
    }

    /// `<!--…-->` (gives nil), `<![CDATA[…]]>` (gives text), `<!DOCTYPE …>` (gives nil).
    mutating func scanDeclarationOrSection() throws(XMLSyntaxError) -> XMLToken? {
        let start = index
        if matches("<!--", at: index) {
            guard let dashes = find(0x2D, 0x2D, from: index + 4) else { throw failure("comment never ends with '-->'", at: start) }
            guard dashes + 2 < bytes.count, bytes[dashes + 2] == 0x3E else {
                throw failure("'--' inside a comment", at: dashes)
            }
            index = dashes + 3
            return nil
        }
        if matches("<![CDATA[", at: index) {
            guard !open.isEmpty else { throw failure("CDATA section outside the root element", at: start) }
            let contentStart = index + 9
            var cursor = contentStart
            while true {
                guard let brackets = find(0x5D, 0x5D, from: cursor) else {
                    throw failure("CDATA section never ends with ']]>'", at: start)
                }
                if brackets + 2 < bytes.count, bytes[brackets + 2] == 0x3E {
                    index = brackets + 3
                    return .text(XMLText(raw: UnsafeBufferPointer(rebasing: bytes[contentStart..<brackets]),
                                         isCDATA: true, hasReferences: false))
                }
                cursor = brackets + 1
            }
        }
        if matches("<!DOCTYPE", at: index) {
            try skipDoctype()
            return nil
        }
        throw failure("unknown markup after '<!'", at: start)
    }

    /// A DOCTYPE before the root names an external DTD at most; nothing in it is
    /// fetched. An internal subset (`[…]`) could declare entities and is refused.
    private mutating func skipDoctype() throws(XMLSyntaxError) {
        let start = index
        guard !rootStarted, !sawDoctype else { throw failure("DOCTYPE not before the root element, or a second one", at: start) }
        sawDoctype = true
        index += 9
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case 0x22, 0x27: quote = byte
            case 0x5B: throw failure("DOCTYPE with an internal subset (entity declarations are not read)", at: index - 1)
            case 0x3E: return
            default: continue
            }
        }
        throw failure("DOCTYPE never ends with '>'", at: start)
    }

    /// Offset of the first `first second` byte pair at or after `from`.
    private func find(_ first: UInt8, _ second: UInt8, from: Int) -> Int? {
        var cursor = from
        while cursor + 1 < bytes.count {
            if bytes[cursor] == first, bytes[cursor + 1] == second { return cursor }
            cursor += 1
        }
        return nil
    }

    private func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return XMLName.equal(UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)]), literal)
    }

    /// Targets spelled `xml` in any case are reserved for the declaration.
    private func isReservedXMLName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count == 3 && name[0] | 0x20 == 0x78 && name[1] | 0x20 == 0x6D && name[2] | 0x20 == 0x6C
    }
}
