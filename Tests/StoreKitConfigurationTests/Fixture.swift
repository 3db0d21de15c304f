import Foundation
import Testing

/// The real `.storekit` files in `Fixtures/`, copied byte for byte from public
/// repositories (see `Fixtures/SOURCES.md`).
enum Fixture: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case foodTruck = "apple__sample-food-truck__Products.storekit"
    case backyardBirds = "apple__sample-backyard-birds__Store.storekit"
    case cisum = "CofficLab__Cisum_SwiftUI__Products.storekit"
    case joodle = "xmliszt__joodle__Store.storekit"
    case glagolitsa = "Kanunnikoff__Glagolitsa-iOS__Store.storekit"
    case leftPocket = "comexbackkid__LeftPocket__StoreKitConfiguration.storekit"

    /// All six were saved by Xcode itself (sorted keys, `" : "`, open empty
    /// containers, trailing newline), so all six must come back byte for byte.
    /// Minified and hand-written shapes are covered by inline documents in the tests.
    static let xcodeWritten: [Fixture] = allCases

    var testDescription: String { rawValue }

    var data: Data {
        get throws {
            let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
            return try Data(contentsOf: directory.appendingPathComponent(rawValue))
        }
    }

    var text: String {
        get throws { String(decoding: try data, as: UTF8.self) }
    }
}

