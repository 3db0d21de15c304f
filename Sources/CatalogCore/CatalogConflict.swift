import Foundation

/// A rule over an app's whole catalog that one product alone cannot break: a reference name or a level taken by
/// another product, a second free subscription, a productId used before, a group that does not exist, too many
/// products. The database repeats these as constraints; a plan of many changes (an import, a catalog file) asks
/// ``CatalogSnapshot/conflicts(ifProductsWere:groups:)`` before it writes anything, so that every conflict is
/// named at once instead of the first one the database meets.
public struct CatalogConflict: Sendable, Hashable, CustomStringConvertible {
    /// What is broken, with what the sentence needs.
    enum Kind: Sendable, Hashable {
        case reserved
        case referenceName(String)
        case level(Int, group: String)
        case noSuchGroup
        case freeSubscription
        case productLimit(Int)
    }

    /// The product that would break the rule (the later of two); `nil` for the app as a whole.
    public let productID: String?
    /// The product it conflicts with, when there is one.
    public let otherProductID: String?
    /// Whether the other product is one the app has now (rather than one being created with this one).
    public let otherExists: Bool
    let kind: Kind

    /// The product's field at fault, as the API names it (`referenceName`, `level`, `productId`, ...).
    public var field: String {
        switch kind {
        case .reserved: "productId"
        case .referenceName: "referenceName"
        case .level: "level"
        case .noSuchGroup: "subscriptionGroupId"
        case .freeSubscription: "type"
        case .productLimit: "products"
        }
    }

    /// A stable name of the rule: `reserved`, `unique`, `levelTaken`, `exists`, `oneFreeSubscription`,
    /// `productLimit`.
    public var rule: String {
        switch kind {
        case .reserved: "reserved"
        case .referenceName: "unique"
        case .level: "levelTaken"
        case .noSuchGroup: "exists"
        case .freeSubscription: "oneFreeSubscription"
        case .productLimit: "productLimit"
        }
    }

    /// One sentence for people, naming the other product by its productId.
    public var message: String { message(naming: { $0 }) }

    /// One sentence for people, naming the other product, when it is one being created with this one, by
    /// `name(productId)` (a file names it by its path); the app's existing products are named as such.
    public func message(naming name: (String) -> String) -> String {
        let other = otherProductID.map { otherExists ? "the app's product \($0)" : name($0) } ?? ""
        switch kind {
        case .reserved:
            return "was used before in this app (the product was deleted) and stays reserved"
        case .referenceName(let referenceName):
            return otherExists
                ? "\"\(referenceName.prefix(64))\" is the referenceName of \(other)"
                : "\"\(referenceName.prefix(64))\" is also the referenceName of \(other); reference names are unique within an app"
        case .level(let level, let group):
            return "level \(level) of the group \"\(group)\" is held by \(other)"
        case .noSuchGroup:
            return "no such subscription group in this app"
        case .freeSubscription:
            return "the app already has a free subscription, \(other) (at most one per app)"
        case .productLimit(let count):
            return "the app would hold \(count) products, at most \(Limits.productsPerApp)"
        }
    }

    public var description: String { "\(productID.map { "\($0)." } ?? "")\(field): \(message)" }
}

extension CatalogSnapshot {
    /// Every rule over the whole catalog that the app would break if `products` were all of its products and
    /// `groups` all of its groups (the snapshot's own, edited, created or left out, as a plan has them).
    ///
    /// The app's existing products come first, then the others in the order given: of two products that share a
    /// reference name (or, among products not rejected, a group's level, or the free subscription), the later is
    /// named, so that a new product is named rather than the existing one it collides with.
    public func conflicts(ifProductsWere products: [Product], groups: [SubscriptionGroup]) -> [CatalogConflict] {
        let existing = Set(self.products.map(\.productID))
        let groupNames = Dictionary(groups.map { ($0.id, $0.referenceName) }, uniquingKeysWith: { first, _ in first })
        var conflicts: [CatalogConflict] = []
        var referenceNames: [String: String] = [:]
        var levels: [String: String] = [:]
        var freeSubscription: String?
        func conflict(_ id: String, _ kind: CatalogConflict.Kind, with other: String? = nil) {
            conflicts.append(CatalogConflict(productID: id, otherProductID: other,
                                             otherExists: other.map(existing.contains) ?? false, kind: kind))
        }
        let ordered = products.filter { existing.contains($0.productID) } + products.filter { !existing.contains($0.productID) }
        for product in ordered {
            let id = product.productID
            if !existing.contains(id) && reservedProductIDs.contains(id) { conflict(id, .reserved) }
            if let other = referenceNames[product.referenceName] {
                conflict(id, .referenceName(product.referenceName), with: other)
            } else {
                referenceNames[product.referenceName] = id
            }
            if let group = product.content.subscriptionGroupID {
                if let groupName = groupNames[group] {
                    if let level = product.content.level, product.state != .rejected {
                        let key = "\(group.uuidString) \(level)"
                        if let other = levels[key] {
                            conflict(id, .level(level, group: groupName), with: other)
                        } else {
                            levels[key] = id
                        }
                    }
                } else {
                    conflict(id, .noSuchGroup)
                }
            }
            if product.type == .freeSubscription {
                if let other = freeSubscription { conflict(id, .freeSubscription, with: other) } else { freeSubscription = id }
            }
        }
        if products.count > Limits.productsPerApp {
            conflicts.append(CatalogConflict(productID: nil, otherProductID: nil, otherExists: false,
                                             kind: .productLimit(products.count)))
        }
        return conflicts
    }
}
