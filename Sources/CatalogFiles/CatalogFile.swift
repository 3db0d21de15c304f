import CatalogCore

/// An app's catalog as a file that lives in the team's repository (docs/catalog-files.md): its subscription
/// groups and its products with every field the API has, in YAML or JSON.
///
/// The file describes what the catalog should hold, the working revision of each product: what is absent is
/// the field's default (no price, no territory prices, family sharing off, cleared for sale, no review note). A
/// product is named by its productId, a group by its reference name, which a product also uses to name its group.
/// Lifecycle actions (approve, submit, ...) are never in the file; they stay explicit commands.
public struct CatalogFile: Sendable, Hashable {
    /// The version of the file's format; this is version 1.
    public static let formatVersion = 1

    /// The app's bundle id, when the file names it (pull does not): a plan refuses a file pinned to another app.
    public var app: String?
    public var subscriptionGroups: [Group]
    public var products: [Item]

    public init(app: String?, subscriptionGroups: [Group] = [], products: [Item] = []) {
        self.app = app
        self.subscriptionGroups = subscriptionGroups
        self.products = products
    }

    /// A subscription group: its reference name (unique within the app) and its localized names.
    public struct Group: Sendable, Hashable {
        public var referenceName: String
        public var localizations: [SubscriptionGroup.Localization]

        public init(referenceName: String, localizations: [SubscriptionGroup.Localization] = []) {
            self.referenceName = referenceName
            self.localizations = localizations
        }
    }

    /// A product as the catalog should hold it, by the API's names.
    public struct Item: Sendable, Hashable {
        public var productID: String
        public var type: PurchaseType
        public var referenceName: String
        public var price: Price?
        public var territoryPrices: [TerritoryPrice]
        public var localizations: [Localization]
        public var familyShareable: Bool
        public var clearedForSale: Bool
        public var reviewNote: String?
        /// The reference name of the product's subscription group.
        public var subscriptionGroup: String?
        public var level: Int?
        public var duration: SubscriptionDuration?
        public var introductoryOffer: IntroductoryOffer?

        public init(productID: String, type: PurchaseType, referenceName: String, price: Price? = nil,
                    territoryPrices: [TerritoryPrice] = [], localizations: [Localization] = [],
                    familyShareable: Bool = false, clearedForSale: Bool = true, reviewNote: String? = nil,
                    subscriptionGroup: String? = nil, level: Int? = nil, duration: SubscriptionDuration? = nil,
                    introductoryOffer: IntroductoryOffer? = nil) {
            self.productID = productID
            self.type = type
            self.referenceName = referenceName
            self.price = price
            self.territoryPrices = territoryPrices
            self.localizations = localizations
            self.familyShareable = familyShareable
            self.clearedForSale = clearedForSale
            self.reviewNote = reviewNote
            self.subscriptionGroup = subscriptionGroup
            self.level = level
            self.duration = duration
            self.introductoryOffer = introductoryOffer
        }
    }
}

extension CatalogFile {
    /// The file of `snapshot`'s catalog as it stands: every group and every product (rejected ones too: their
    /// productIds stay taken), each product's working revision (its draft, while a change is pending), groups by
    /// reference name and products by productId in byte order. It names no app, so that one file can describe
    /// several apps (a staging app and the app on sale); a team that wants a file pinned to one app adds `app`.
    public init(of snapshot: CatalogSnapshot) {
        let groupNames = Dictionary(snapshot.groups.map { ($0.id, $0.referenceName) }, uniquingKeysWith: { first, _ in first })
        self.init(
            app: nil,
            subscriptionGroups: snapshot.groups
                .sorted { $0.referenceName.utf8.lexicographicallyPrecedes($1.referenceName.utf8) }
                .map { Group(referenceName: $0.referenceName, localizations: $0.localizations) },
            products: snapshot.products
                .sorted { $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }
                .map { Item($0, group: $0.content.subscriptionGroupID.flatMap { groupNames[$0] }) })
    }
}

extension CatalogFile.Item {
    /// The file's description of `product`'s working revision, its group named `group`.
    public init(_ product: Product, group: String?) {
        self.init(productID: product.productID, type: product.type, referenceName: product.referenceName,
                  price: product.price, territoryPrices: product.territoryPrices,
                  localizations: product.content.localizations, familyShareable: product.content.familyShareable,
                  clearedForSale: product.clearedForSale, reviewNote: product.content.reviewNote,
                  subscriptionGroup: group, level: product.content.level, duration: product.content.duration,
                  introductoryOffer: product.introductoryOffer)
    }
}
