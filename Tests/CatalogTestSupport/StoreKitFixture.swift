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
    /// Format 1.0, written by Xcode 12 without a final newline.
    case revenueCatSwiftExample = "RevenueCat__purchases-ios__Configuration.storekit"
    /// Format 1.1.
    case revenueCatLegacyExample = "RevenueCat__purchases-ios__RevenueCat_LegacySwiftExampleConfiguration.storekit"
    /// Format 1.2.
    case storeKitTesting = "FranciszekCzana__StoreKitTesting__Configuration.storekit"
    /// Format 3.0; three reference names each given to subscriptions of two groups; an offer-signing key.
    case purchaseTester = "RevenueCat__purchases-ios__RevenueCat_IntegrationPurchaseTesterConfiguration.storekit"

    /// Every one was saved by Xcode itself (sorted keys, `" : "`, open empty containers), so each comes back byte
    /// for byte, but for the final newline that Xcode 12 left out and later Xcodes write (see ``exportText``).
    /// Minified and hand-written shapes are covered by inline documents in the tests.
    public static let xcodeWritten: [StoreKitFixture] = allCases.filter(\.endsWithNewline)

    /// Whether the file ends with a newline (Xcode 12's format 1.0 files did not).
    public var endsWithNewline: Bool { self != .revenueCatSwiftExample }

    /// The file as an export of its import gives it back: itself, with a final newline.
    public var exportText: String {
        get throws {
            let text = String(decoding: try data, as: UTF8.self)
            return endsWithNewline ? text : text + "\n"
        }
    }

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

/// Shapes of real files that earlier imports refused and that were not found among the public files collected
/// (Fixtures/SOURCES.md): each is the format 1.0 fixture with one value changed, as older Xcodes wrote it.
public enum StoreKitVariant: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The non-consumable's `referenceName` is `null`.
    case nullReferenceName = "null-reference-name"
    /// The first subscription's free trial has `"displayPrice" : ""`.
    case emptyOfferPrice = "empty-offer-price"
    /// The non-consumable is free: `"displayPrice" : "0"`.
    case freeNonConsumable = "free-non-consumable"

    public var description: String { rawValue }

    /// The file's name in the tests' imports.
    public var fileName: String { "\(rawValue).storekit" }

    public var text: String {
        get throws {
            let original = String(decoding: try StoreKitFixture.revenueCatSwiftExample.data, as: UTF8.self)
            let (old, new) = switch self {
            case .nullReferenceName: ("\"referenceName\" : \"lifetime\"", "\"referenceName\" : null")
            case .emptyOfferPrice:
                ("\"introductoryOffer\" : {\n            \"internalID\" : \"D4FA46D0\"",
                 "\"introductoryOffer\" : {\n            \"displayPrice\" : \"\",\n            \"internalID\" : \"D4FA46D0\"")
            case .freeNonConsumable: ("\"displayPrice\" : \"199.99\"", "\"displayPrice\" : \"0\"")
            }
            precondition(original.contains(old), "the format 1.0 fixture changed")
            return original.replacingOccurrences(of: old, with: new)
        }
    }

    public var data: Data {
        get throws { Data(try text.utf8) }
    }

    /// The file as an export of its import gives it back: itself, with a final newline.
    public var exportText: String {
        get throws { try text + "\n" }
    }
}
