import CatalogCore

/// A catalog file as it is written: the model as text, numbers, booleans, mappings and lists, in the file's order.
/// The YAML and JSON writers render it; the layout of an existing file reorders it.
enum FileValue: Equatable {
    /// One `key: value` entry of a mapping.
    struct Pair: Equatable {
        var key: String
        var value: FileValue

        init(_ key: String, _ value: FileValue) {
            self.key = key
            self.value = value
        }
    }

    case text(String)
    case number(Int)
    case boolean(Bool)
    case mapping([Pair])
    case list([FileValue])

    /// The key that names each element of the list at a key: a product by its productId, a group by its reference
    /// name, a localization by its locale, a territory's price by its territory. Elements are matched by it when an
    /// existing file's order and comments are kept.
    static func identityKey(ofListAt key: String) -> String? {
        switch key {
        case "products": "productId"
        case "subscriptionGroups": "referenceName"
        case "localizations": "locale"
        case "territoryPrices": "territory"
        default: nil
        }
    }

    /// The element's name in its list: the value of its identity key.
    func identity(_ key: String?) -> String? {
        guard let key, case .mapping(let pairs) = self, case .text(let value)? = pairs.first(where: { $0.key == key })?.value
        else { return nil }
        return value
    }
}

extension CatalogFile {
    /// The file as written, keys in the canonical order: what identifies a product first, then what it costs,
    /// where it sits, what is shared and what customers read. Defaults are left out.
    var value: FileValue {
        var root: [FileValue.Pair] = [.init("version", .number(CatalogFile.formatVersion))]
        if let app { root.append(.init("app", .text(app))) }
        root.append(.init("subscriptionGroups", .list(subscriptionGroups.map(\.value))))
        root.append(.init("products", .list(products.map(\.value))))
        return .mapping(root)
    }
}

extension CatalogFile.Group {
    var value: FileValue {
        var pairs: [FileValue.Pair] = [.init("referenceName", .text(referenceName))]
        if !localizations.isEmpty {
            pairs.append(.init("localizations", .list(localizations.map {
                .mapping([.init("locale", .text($0.locale)), .init("name", .text($0.name))])
            })))
        }
        return .mapping(pairs)
    }
}

extension CatalogFile.Item {
    var value: FileValue {
        var pairs: [FileValue.Pair] = [
            .init("productId", .text(productID)), .init("type", .text(type.rawValue)), .init("referenceName", .text(referenceName)),
        ]
        if let price {
            pairs.append(.init("price", .mapping([.init("currency", .text(price.currency)), .init("amount", .text(price.amount.text))])))
        }
        if !territoryPrices.isEmpty {
            pairs.append(.init("territoryPrices", .list(territoryPrices.map {
                .mapping([.init("territory", .text($0.territory)), .init("currency", .text($0.currency)),
                          .init("amount", .text($0.amount.text))])
            })))
        }
        if let subscriptionGroup { pairs.append(.init("subscriptionGroup", .text(subscriptionGroup))) }
        if let level { pairs.append(.init("level", .number(level))) }
        if let duration { pairs.append(.init("duration", .text(duration.rawValue))) }
        if let introductoryOffer {
            var offer: [FileValue.Pair] = [
                .init("paymentMode", .text(introductoryOffer.paymentMode.rawValue)), .init("period", .text(introductoryOffer.period.rawValue)),
                .init("numberOfPeriods", .number(introductoryOffer.numberOfPeriods)),
            ]
            if let amount = introductoryOffer.amount { offer.append(.init("amount", .text(amount.text))) }
            pairs.append(.init("introductoryOffer", .mapping(offer)))
        }
        if familyShareable { pairs.append(.init("familyShareable", .boolean(true))) }
        if !clearedForSale { pairs.append(.init("clearedForSale", .boolean(false))) }
        if !localizations.isEmpty {
            pairs.append(.init("localizations", .list(localizations.map {
                .mapping([.init("locale", .text($0.locale)), .init("displayName", .text($0.displayName)),
                          .init("description", .text($0.description))])
            })))
        }
        if let reviewNote { pairs.append(.init("reviewNote", .text(reviewNote))) }
        return .mapping(pairs)
    }
}
