import Foundation
import XCTest
@testable import LocusNotifier

final class TemplateTests: XCTestCase {
    func testRendersPlaceholdersAndLiteralBraces() throws {
        let template = try PlaceholderTemplate("{{x}} near {region} by {device}", allowed: ["region", "device"])
        XCTAssertEqual(template.render(["region": "depot", "device": "d1"]), "{x} near depot by d1")
        XCTAssertEqual(template.render(["region": "depot"]), "{x} near depot by ?")
    }

    func testUnknownPlaceholderIsRejectedWithItsName() {
        XCTAssertThrowsError(try PlaceholderTemplate("near {regoin}", allowed: ["region"])) { error in
            XCTAssertTrue((error as? CatalogError)?.message.contains("{regoin}") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try PlaceholderTemplate("near {region", allowed: ["region"]))
        XCTAssertThrowsError(try PlaceholderTemplate("near region}", allowed: ["region"]))
    }

    func testSimplifiedChineseCatalogUsesTheSeedTexts() throws {
        let catalog = try MessageCatalog(locale: "zh-Hans")
        XCTAssertEqual(catalog.render(.enter, ["region": "外滩"]).body, "您已进入 外滩 附近")
        XCTAssertEqual(catalog.render(.exit, ["region": "外滩"]).body, "您已离开 外滩 区域")
        XCTAssertEqual(catalog.render(.destinationArrival, [:]).body, "您已经到达目的地!")
        XCTAssertEqual(catalog.render(.destinationProgress, ["distance": "1200"]).body, "距离目的地还有1200米")
    }

    func testEveryBuiltInLocaleCoversEveryKind() throws {
        for locale in MessageCatalog.builtInLocales {
            let catalog = try MessageCatalog(locale: locale)
            XCTAssertEqual(Set(catalog.entries.keys), Set(NotificationKind.allCases), locale)
        }
    }

    func testUnknownLocaleIsAnError() {
        XCTAssertThrowsError(try MessageCatalog(locale: "xx")) { error in
            XCTAssertTrue("\(error)".contains("unknown locale 'xx'"))
        }
    }

    func testUserCatalogOverridesOneKindAndAddsALocale() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("catalog.json")
        try Data(#"{"de": {"enter": {"body": "Sie sind in der Nähe von {region}"}}}"#.utf8).write(to: file)
        let catalog = try MessageCatalog(locale: "de", userFile: file)
        XCTAssertEqual(catalog.render(.enter, ["region": "Depot"]).body, "Sie sind in der Nähe von Depot")
        XCTAssertEqual(catalog.render(.exit, ["region": "Depot"]).body, "You have left the Depot area", "other kinds fall back to English")
    }

    func testUserCatalogWithUnknownPlaceholderOrKindFails() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("catalog.json")
        try Data(#"{"en": {"enter": {"body": "near {distance}"}}}"#.utf8).write(to: file)
        XCTAssertThrowsError(try MessageCatalog(locale: "en", userFile: file)) { XCTAssertTrue("\($0)".contains("{distance}")) }
        try Data(#"{"en": {"teleport": {"body": "x"}}}"#.utf8).write(to: file)
        XCTAssertThrowsError(try MessageCatalog(locale: "en", userFile: file)) { XCTAssertTrue("\($0)".contains("teleport")) }
    }
}
