import Foundation

/// The real `.storekit` files of `Tests/StoreKitConfigurationTests/Fixtures`, copied byte for byte from public
/// repositories (see SOURCES.md there), for the tests of the mapping and of the HTTP import and export.
public enum StoreKitFixture: String, CaseIterable, Sendable, CustomStringConvertible {
    case foodTruck = "apple__sample-food-truck__Products.storekit"
    case backyardBirds = "apple__sample-backyard-birds__Store.storekit"
    case cisum = "CofficLab__Cisum_SwiftUI__Products.storekit"
    case joodle = "xmliszt__joodle__Store.storekit"
    case glagolitsa = "Kanunnikoff__Glagolitsa-iOS__Store.storekit"
    case leftPocket = "comexbackkid__LeftPocket__StoreKitConfiguration.storekit"

    /// All six were saved by Xcode itself (sorted keys, `" : "`, open empty containers, trailing newline), so
    /// all six must come back byte for byte. Minified and hand-written shapes are covered by inline documents in
    /// the tests.
    public static let xcodeWritten: [StoreKitFixture] = allCases

    public var description: String { rawValue }

    public var url: URL {
        TestDatabase.repositoryRoot.appendingPathComponent("Tests/StoreKitConfigurationTests/Fixtures")
            .appendingPathComponent(rawValue)
    }

    /// The file's bytes.
    public var data: Data {
        get throws { try Data(contentsOf: url) }
    }
}
