public import Foundation

/// Reads GPX 1.0 and 1.1 with the project's own `XMLTokenizer` (no libxml2, nothing
/// fetched, no entity expanded). Tolerant where files in the wild differ: a byte-order
/// mark, any or no namespace and prefixes, missing times and elevations, unknown elements,
/// `<extensions>`, comments and a plain DOCTYPE are skipped. Input must be UTF-8 (the GPX
/// norm). Strict where a replay would go wrong: XML that is not well-formed, a root that is
/// not `gpx`, or a point without a valid `lat`/`lon` is an error with its line and column,
/// never a crash.
public enum GPXParser {
    /// Files larger than this are refused rather than read into memory.
    public static let maximumBytes = 256 << 20

    public static func parse(contentsOf path: String) throws(GPXError) -> GPXDocument {
        guard let data = FileManager.default.contents(atPath: path) else { throw GPXError("cannot read \(path)") }
        return try parse(data)
    }

    public static func parse(_ data: Data) throws(GPXError) -> GPXDocument {
        guard data.count <= maximumBytes else { throw GPXError("file larger than \(maximumBytes) bytes") }
        guard !data.isEmpty else { throw GPXError("empty input") }
        let result = data.withUnsafeBytes { raw in
            Result { () throws(GPXError) in try parse(bytes: raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    /// Parses the bytes of a whole GPX file.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(GPXError) -> GPXDocument {
        var builder = GPXBuilder()
        var tokenizer: XMLTokenizer
        do { tokenizer = try XMLTokenizer(bytes) } catch { throw GPXError(error) }
        while true {
            let next: XMLToken?
            do { next = try tokenizer.next() } catch { throw GPXError(error) }
            guard let token = next else { break }
            do throws(GPXError) {
                switch token {
                case .startTag(let name): try builder.start(name, attributes: tokenizer.attributes)
                case .endTag: try builder.end()
                case .text(let text): builder.characters(text)
                case .processingInstruction(let target, let data):
                    // GPX has no use for processing instructions; one without data (which
                    // crashed libxml2-based readers) marks a broken or hostile file.
                    if data.isEmpty { throw GPXError("processing instruction <?\(target.string)?> has no data (not GPX)") }
                }
            } catch {
                let (line, column) = tokenizer.position(of: tokenizer.tokenOffset)
                throw GPXError(error.message, line: line, column: column)
            }
        }
        return builder.document
    }
}

extension GPXError {
    init(_ syntax: XMLSyntaxError) {
        self.init(syntax.message, line: syntax.line, column: syntax.column)
    }
}
