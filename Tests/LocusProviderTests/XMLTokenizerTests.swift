import XCTest
@testable import LocusProvider

/// What the tokenizer hands out for well-formed input, written as short strings:
/// `<name a=value>`, `</name>`, `text:…`, `cdata:…`, `?target data`.
final class XMLTokenizerTests: XCTestCase {
    func testElementsAttributesAndText() {
        XCTAssertEqual(tokens(#"<a x="1" y='two'>hi<b/>there</a>"#),
                       .success(["<a x=1 y=two>", "text:hi", "<b>", "</b>", "text:there", "</a>"]))
    }

    func testReferencesAreExpandedInTextAndAttributes() {
        XCTAssertEqual(tokens(#"<a t="&lt;&#65;&#x42;&quot;">&amp;&apos;&gt;&#233;&#x1F600;</a>"#),
                       .success([#"<a t=<AB">"#, "text:&'>é😀", "</a>"]))
    }

    func testCDATAIsLiteral() {
        XCTAssertEqual(tokens("<a>x<![CDATA[<b>&amp;]]]]>y</a>"),
                       .success(["<a>", "text:x", "cdata:<b>&amp;]]", "text:y", "</a>"]))
    }

    func testDeclarationCommentsAndDoctypeAreSkippedInstructionsHandedOut() {
        let xml = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE gpx SYSTEM \"x>y.dtd\">\n<!-- c - d -->\n"
            + "<?xml-stylesheet href=\"s.css\"?>\n<gpx><!-- inside --></gpx>\n<!-- after -->\n<?done?>\n"
        XCTAssertEqual(tokens(xml), .success([#"?xml-stylesheet href="s.css""#, "<gpx>", "</gpx>", "?done "]))
    }

    func testLineEndsAndAttributeWhitespaceAreNormalised() {
        XCTAssertEqual(tokens("<a v=\"1\t2\r\n3&#10;\">x\r\ny\rz</a>"), .success(["<a v=1 2 3\n>", "text:x\ny\nz", "</a>"]))
    }

    func testPrefixedNamesKeepTheirLocalPart() throws {
        let bytes = Array("<g:gpx xmlns:g='urn:g'><g:trk/></g:gpx>".utf8)
        let locals: [String] = try bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = try XMLTokenizer(buffer)
            var names: [String] = []
            while let token = try tokenizer.next() {
                if case .startTag(let name) = token { names.append("\(name.string)=\(name.localString)") }
            }
            return names
        }
        XCTAssertEqual(locals, ["g:gpx=gpx", "g:trk=trk"])
    }

    func testMalformedInputNamesWhatAndWhere() {
        let deep = String(repeating: "<a>", count: XMLTokenizer.maximumDepth + 1)
        let cases: [(input: String, words: String, line: Int, column: Int)] = [
            ("<gpx>\n  <trk>\n</gpx>", "end tag </gpx> does not match <trk> opened at line 2, column 3", 3, 3),
            ("<gpx>\n<trk>", "input ends inside <trk> opened at line 2, column 1 (truncated file?)", 2, 6),
            ("<gpx><trk", "input ends inside the start tag <trk>", 1, 10),
            (#"<gpx lat="1"#, "input ends inside the value of attribute lat", 1, 11),
            ("<gpx>&nbsp;</gpx>", "undefined entity &nbsp;", 1, 6),
            ("<gpx>fish & chips</gpx>", "'&' that does not start a reference", 1, 11),
            ("<gpx>&#0;</gpx>", "character reference to U+0, which XML does not allow", 1, 6),
            ("<gpx>&#x110000;</gpx>", "beyond U+10FFFF", 1, 6),
            ("<!DOCTYPE gpx [<!ENTITY a \"aaaa\">]><gpx>&a;</gpx>", "DOCTYPE with an internal subset", 1, 15),
            (#"<gpx a="1" a="2"/>"#, "attribute a appears twice in <gpx>", 1, 12),
            (#"<gpx a="1"b="2"/>"#, "no space before an attribute", 1, 11),
            (#"<gpx a="<"/>"#, "'<' in the value of attribute a", 1, 9),
            ("<gpx a=1/>", "value of attribute a not in quotes", 1, 8),
            ("<a/><b/>", "a second root element", 1, 5),
            ("hello", "text before the root element", 1, 1),
            ("<a/>\nbye", "text after the root element", 2, 1),
            ("  \n ", "no root element", 2, 2),
            ("<a>]]></a>", "']]>' in text", 1, 4),
            ("<a><!-- x -- y --></a>", "'--' inside a comment", 1, 11),
            ("<a><!-- x </a>", "comment never ends", 1, 4),
            ("<a><![CDATA[x</a>", "CDATA section never ends", 1, 4),
            ("<![CDATA[x]]><a/>", "CDATA section outside the root element", 1, 1),
            (" <?xml version=\"1.0\"?><a/>", "XML declaration <?xml not at the start", 1, 2),
            ("<?xml encoding=\"UTF-8\"?><a/>", "XML declaration without a version", 1, 7),
            ("<a><!ELEMENT a ANY></a>", "unknown markup after '<!'", 1, 4),
            ("<a></b></a>", "end tag </b> does not match <a> opened at line 1, column 1", 1, 6),
            ("</a>", "end tag </a> without a start tag", 1, 3),
            ("<1a/>", "an element name after '<' expected", 1, 2),
            (deep, "elements nested deeper than \(XMLTokenizer.maximumDepth)", 1, 3 * XMLTokenizer.maximumDepth + 1),
        ]
        for (input, words, line, column) in cases {
            guard case .failure(let error) = tokens(input) else {
                XCTFail("accepted: \(input.prefix(60))")
                continue
            }
            XCTAssertTrue(error.message.contains(words), "\(input.prefix(60)): \(error.message)")
            XCTAssertEqual(error.line, line, "\(input.prefix(60)): \(error)")
            XCTAssertEqual(error.column, column, "\(input.prefix(60)): \(error)")
        }
    }

    func testCharactersXMLDoesNotAllowAreRefusedWithTheirPosition() {
        let cases: [(bytes: [UInt8], words: String, line: Int, column: Int)] = [
            (Array("<gpx>\n<né".utf8) + [0xFF] + Array("/></gpx>".utf8), "invalid UTF-8 (byte 0xFF)", 2, 4),
            (Array("<gpx>".utf8) + [0xC0, 0xAF] + Array("</gpx>".utf8), "invalid UTF-8", 1, 6),  // overlong "/"
            (Array("<gpx>".utf8) + [0xED, 0xA0, 0x80] + Array("</gpx>".utf8), "invalid UTF-8", 1, 6),  // a surrogate
            (Array("<gpx>".utf8) + [0xEF, 0xBF, 0xBF] + Array("</gpx>".utf8), "U+FFFF", 1, 6),
            (Array("<gpx>ab".utf8) + [0x00] + Array("</gpx>".utf8), "NUL byte", 1, 8),
            (Array("<gpx>".utf8) + [0x1B] + Array("</gpx>".utf8), "control character 0x1b", 1, 6),
            (Array("<gpx>abcdefghijklmnop".utf8) + [0xE2, 0x82] + Array("</gpx>".utf8), "invalid UTF-8", 1, 22),
        ]
        for (bytes, words, line, column) in cases {
            guard case .failure(let error) = tokens(bytes) else {
                XCTFail("accepted: \(bytes)")
                continue
            }
            XCTAssertTrue(error.message.contains(words), "\(bytes): \(error.message)")
            XCTAssertEqual(error.line, line, "\(bytes): \(error)")
            XCTAssertEqual(error.column, column, "\(bytes): \(error)")
        }
    }

    func testLimitsBoundHugeNamesAndValues() {
        let value = String(repeating: "x", count: XMLTokenizer.maximumAttributeValueBytes + 1)
        XCTAssertEqual(tokens("<gpx a=\"\(value)\"/>").failureMessage,
                       "value of attribute a longer than \(XMLTokenizer.maximumAttributeValueBytes) bytes")
        let name = String(repeating: "n", count: XMLTokenizer.maximumNameBytes + 1)
        XCTAssertEqual(tokens("<\(name)/>").failureMessage, "name longer than \(XMLTokenizer.maximumNameBytes) bytes")
        let many = (0...XMLTokenizer.maximumAttributes).map { "a\($0)=\"\"" }.joined(separator: " ")
        XCTAssertEqual(tokens("<gpx \(many)/>").failureMessage,
                       "more than \(XMLTokenizer.maximumAttributes) attributes in <gpx>")
        // Just under the limits is fine.
        let fine = String(repeating: "y", count: XMLTokenizer.maximumAttributeValueBytes)
        XCTAssertEqual(tokens("<gpx a=\"\(fine)\"/>").successCount, 2)
    }

    // MARK: Helpers

    private func tokens(_ xml: String) -> Result<[String], XMLSyntaxError> { tokens(Array(xml.utf8)) }

    private func tokens(_ bytes: [UInt8]) -> Result<[String], XMLSyntaxError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(XMLSyntaxError) in
                var tokenizer = try XMLTokenizer(buffer)
                var out: [String] = []
                while let token = try tokenizer.next() { out.append(Self.describe(token, tokenizer.attributes)) }
                return out
            }
        }
    }

    private static func describe(_ token: XMLToken, _ attributes: [XMLAttribute]) -> String {
        switch token {
        case .startTag(let name):
            return "<" + ([name.string] + attributes.map { "\($0.name.string)=\($0.value)" }).joined(separator: " ") + ">"
        case .endTag(let name):
            return "</\(name.string)>"
        case .text(let text):
            var decoded: [UInt8] = []
            text.appendDecoded(to: &decoded)
            return (text.isCDATA ? "cdata:" : "text:") + String(decoding: decoded, as: UTF8.self)
        case .processingInstruction(let target, let data):
            return "?\(target.string) \(String(decoding: data, as: UTF8.self))"
        }
    }
}

extension Result where Success == [String], Failure == XMLSyntaxError {
    var failureMessage: String? { if case .failure(let error) = self { error.message } else { nil } }
    var successCount: Int? { if case .success(let tokens) = self { tokens.count } else { nil } }
}
