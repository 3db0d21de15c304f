/// A consumable or non-consumable (in `products`) or a non-renewing
/// subscription (in `nonRenewingSubscriptions`).
///
/// A non-renewing subscription has no duration in the format.
public struct StoreKitProduct: Sendable, Equatable {
    /// Free-form; as short as `"IT"` in real files.
    public var productID: String
    /// The name shown in Xcode; may be non-ASCII.
    /// `nil` where the file has `null` (older files, for a product never given a reference name).
    public var referenceName: String?
    public var type: StoreKitProductType
    /// The price exactly as written (`"0.99"`, `"2.00"`, `"100"`), without a
    /// currency: the currency comes from the storefront, never from the file.
    public var displayPrice: String
    public var familyShareable: Bool
    /// Eight hex digits in local files; App Store Connect's numeric id in synced files.
    public var internalID: String
    /// In file order, which carries no meaning. May be empty.
    public var localizations: [StoreKitLocalization]
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(
        productID: String,
        referenceName: String?,
        type: StoreKitProductType,
        displayPrice: String,
        familyShareable: Bool = false,
        internalID: String = StoreKitConfiguration.generateIdentifier(),
        localizations: [StoreKitLocalization] = [],
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.productID = productID
        self.referenceName = referenceName
        self.type = type
        self.displayPrice = displayPrice
        self.familyShareable = familyShareable
        self.internalID = internalID
        self.localizations = localizations
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = [
        "displayPrice", "familyShareable", "internalID", "localizations", "productID", "referenceName", "type",
    ]

    /// Reads a product from an array that holds the `allowed` types.
    static func reading(allowed: [StoreKitProductType]) -> Reading<StoreKitProduct> {
        { value, path, log in
            guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
            let productID = reader.required("productID", Expect.string)
            let referenceName = reader.required("referenceName", Expect.stringOrNull)
            let type = reader.required("type", StoreKitProductType.reading(allowed: allowed))
            let displayPrice = reader.required("displayPrice", Expect.price)
            let familyShareable = reader.required("familyShareable", Expect.bool)
            let internalID = reader.required("internalID", Expect.string)
            let localizations = reader.required("localizations", Expect.array(of: StoreKitLocalization.read))
            guard let productID, let referenceName, let type, let displayPrice, let familyShareable,
                let internalID, let localizations
            else { return nil }
            return StoreKitProduct(
                productID: productID, referenceName: referenceName, type: type, displayPrice: displayPrice,
                familyShareable: familyShareable, internalID: internalID, localizations: localizations,
                unknownKeys: reader.unknownKeys)
        }
    }

    /// The JSON for this product, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["displayPrice"] = .string(displayPrice)
        object["familyShareable"] = .bool(familyShareable)
        object["internalID"] = .string(internalID)
        object["localizations"] = .array(localizations.map { $0.jsonValue() })
        object["productID"] = .string(productID)
        object["referenceName"] = referenceName.map { .string($0) } ?? .null
        object["type"] = .string(type.rawValue)
        return .object(object.sortedForXcode())
    }
}
