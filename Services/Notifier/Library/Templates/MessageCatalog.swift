public import Foundation

/// Title and body templates per notification kind for one locale, chosen with `--locale`.
/// A user catalog file overrides single kinds and may add a locale of its own.
public struct MessageCatalog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var title: PlaceholderTemplate
        public var body: PlaceholderTemplate
    }

    public let locale: String
    public private(set) var entries: [NotificationKind: Entry]

    /// The locale used when none is chosen, and the base of a locale found only in a user file.
    public static let defaultLocale = "en"

    /// Locales that ship with the notifier.
    public static var builtInLocales: [String] { BuiltInCatalogs.all.keys.sorted() }

    /// The built-in catalog for `locale`; an unknown locale is an error, not a silent fallback.
    public init(locale: String) throws(CatalogError) {
        guard let texts = BuiltInCatalogs.all[locale] else {
            throw CatalogError("unknown locale '\(locale)' (built in: \(Self.builtInLocales.joined(separator: ", ")); others need --catalog FILE)")
        }
        self.locale = locale
        var entries: [NotificationKind: Entry] = [:]
        for (kind, text) in texts {
            entries[kind] = try Entry(title: PlaceholderTemplate(text.title, allowed: kind.placeholders),
                                      body: PlaceholderTemplate(text.body, allowed: kind.placeholders))
        }
        self.entries = entries
    }

    /// The catalog for `locale` with a user file applied. The file is JSON:
    /// `{"<locale>": {"<kind>": {"title": "...", "body": "..."}}}`; a locale found only in
    /// the file starts from English so every kind still has a text.
    public init(locale: String, userFile: URL?) throws(CatalogError) {
        guard let userFile else {
            try self.init(locale: locale)
            return
        }
        let overrides = try Self.load(userFile)
        guard BuiltInCatalogs.all[locale] != nil || overrides[locale] != nil else {
            throw CatalogError("unknown locale '\(locale)': neither built in nor in \(userFile.path)")
        }
        try self.init(locale: BuiltInCatalogs.all[locale] != nil ? locale : Self.defaultLocale)
        for (kind, text) in overrides[locale] ?? [:] {
            let current = entries[kind]
            entries[kind] = try Entry(
                title: text.title.map { text throws(CatalogError) in try PlaceholderTemplate(text, allowed: kind.placeholders) } ?? current!.title,
                body: text.body.map { text throws(CatalogError) in try PlaceholderTemplate(text, allowed: kind.placeholders) } ?? current!.body)
        }
        self = MessageCatalog(locale: locale, entries: entries)
    }

    private init(locale: String, entries: [NotificationKind: Entry]) {
        self.locale = locale
        self.entries = entries
    }

    /// Renders the title and body of `kind` with `values`.
    public func render(_ kind: NotificationKind, _ values: [String: String]) -> (title: String, body: String) {
        guard let entry = entries[kind] else { return (kind.rawValue, "") }
        return (entry.title.render(values), entry.body.render(values))
    }

    private static func load(_ file: URL) throws(CatalogError) -> [String: [NotificationKind: (title: String?, body: String?)]] {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw CatalogError("cannot read catalog \(file.path): \(error.localizedDescription)")
        }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CatalogError("catalog \(file.path) is not a JSON object")
        }
        var result: [String: [NotificationKind: (title: String?, body: String?)]] = [:]
        for (locale, value) in root {
            guard let kinds = value as? [String: Any] else {
                throw CatalogError("catalog \(file.path): '\(locale)' must map kinds to {title, body}")
            }
            for (name, entry) in kinds {
                guard let kind = NotificationKind(rawValue: name) else {
                    throw CatalogError("catalog \(file.path): unknown kind '\(name)' (known: \(NotificationKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                guard let fields = entry as? [String: Any],
                      fields.values.allSatisfy({ $0 is String }), !fields.isEmpty,
                      Set(fields.keys).isSubset(of: ["title", "body"]) else {
                    throw CatalogError("catalog \(file.path): '\(locale).\(name)' must be {\"title\": \"...\", \"body\": \"...\"}")
                }
                result[locale, default: [:]][kind] = (fields["title"] as? String, fields["body"] as? String)
            }
        }
        return result
    }
}
