/// An auto-renewable subscription, in `subscriptionGroups[].subscriptions`.
///
/// Its `type` is always `RecurringSubscription`, so it is not stored. The
/// offer lists are optional because which of them a file has depends on the
/// Xcode that wrote it (`codeOffers` from 1.2, `winbackOffers` from 4.0,
/// `introductoryOffers` and `billingPlans` from 5.0); `nil` means the key is
/// absent, `[]` that it is written empty.
public struct StoreKitSubscription: Sendable, Equatable {
    public var productID: String
    /// `nil` where the file has `null` (older files, for a product never given a reference name).
    public var referenceName: String?
    /// Exact decimal text; see ``StoreKitProduct/displayPrice``.
    public var displayPrice: String
    public var familyShareable: Bool
    public var internalID: String
    public var localizations: [StoreKitLocalization]
    /// The service level inside the group: 1 is the highest; ties are allowed.
    public var groupNumber: Int
    public var recurringSubscriptionPeriod: StoreKitRecurringPeriod
    /// The enclosing group's ``StoreKitSubscriptionGroup/id``.
    public var subscriptionGroupID: String
    /// The 1.0–4.0 single introductory offer key.
    public var introductoryOffer: StoreKitLegacyIntroductoryOffer
    /// The 5.0+ list of introductory offers.
    public var introductoryOffers: [StoreKitOffer]?
    /// Promotional offers.
    public var adHocOffers: [StoreKitOffer]?
    /// Offer codes.
    public var codeOffers: [StoreKitOffer]?
    public var winbackOffers: [StoreKitOffer]?
    public var billingPlans: [StoreKitBillingPlan]?
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    /// A subscription shaped as format 4.0 writes one: empty ad hoc, code and
    /// win-back offer lists and a `null` introductory offer.
    public init(
        productID: String,
        referenceName: String?,
        displayPrice: String,
        familyShareable: Bool = false,
        internalID: String = StoreKitConfiguration.generateIdentifier(),
        localizations: [StoreKitLocalization] = [],
        groupNumber: Int,
        recurringSubscriptionPeriod: StoreKitRecurringPeriod,
        subscriptionGroupID: String,
        introductoryOffer: StoreKitLegacyIntroductoryOffer = .null,
        introductoryOffers: [StoreKitOffer]? = nil,
        adHocOffers: [StoreKitOffer]? = [],
        codeOffers: [StoreKitOffer]? = [],
        winbackOffers: [StoreKitOffer]? = [],
        billingPlans: [StoreKitBillingPlan]? = nil,
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.productID = productID
        self.referenceName = referenceName
        self.displayPrice = displayPrice
        self.familyShareable = familyShareable
        self.internalID = internalID
        self.localizations = localizations
        self.groupNumber = groupNumber
        self.recurringSubscriptionPeriod = recurringSubscriptionPeriod
        self.subscriptionGroupID = subscriptionGroupID
        self.introductoryOffer = introductoryOffer
        self.introductoryOffers = introductoryOffers
        self.adHocOffers = adHocOffers
        self.codeOffers = codeOffers
        self.winbackOffers = winbackOffers
        self.billingPlans = billingPlans
        self.unknownKeys = unknownKeys
    }

    /// The introductory offers under either spelling. RevenueCat's 5.0 files
    /// hold the same offer (same `internalID`) under both keys; it is listed once.
    public var allIntroductoryOffers: [StoreKitOffer] {
        var offers = introductoryOffers ?? []
        if let legacy = introductoryOffer.offer, !offers.contains(where: { $0.internalID == legacy.internalID }) {
            offers.insert(legacy, at: 0)
        }
        return offers
    }

    static let modeledKeys = StoreKitProduct.modeledKeys + [
        "adHocOffers", "billingPlans", "codeOffers", "groupNumber", "introductoryOffer", "introductoryOffers",
        "recurringSubscriptionPeriod", "subscriptionGroupID", "winbackOffers",
    ]

    /// Reads a subscription of the group whose id is `groupID` (when that id is readable).
    static func reading(groupID: String?) -> Reading<StoreKitSubscription> {
        { value, path, log in
            let issuesBefore = log.issues.count
            guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
            let productID = reader.required("productID", Expect.string)
            let referenceName = reader.required("referenceName", Expect.stringOrNull)
            _ = reader.required("type", StoreKitProductType.reading(allowed: [.recurringSubscription]))
            let displayPrice = reader.required("displayPrice", Expect.price)
            let familyShareable = reader.required("familyShareable", Expect.bool)
            let internalID = reader.required("internalID", Expect.string)
            let localizations = reader.required("localizations", Expect.array(of: StoreKitLocalization.read))
            let groupNumber = reader.required("groupNumber", Expect.positiveInteger)
            let period = reader.required("recurringSubscriptionPeriod", StoreKitRecurringPeriod.read)
            let subscriptionGroupID = reader.required("subscriptionGroupID", Expect.string)
            if let subscriptionGroupID, let groupID, subscriptionGroupID != groupID {
                log.add(
                    "subscriptionGroupID \(XcodeJSONWriter.quoted(subscriptionGroupID)) does not match the enclosing group's id \(XcodeJSONWriter.quoted(groupID))",
                    at: path.appending("subscriptionGroupID"))
            }
            let introductoryOffer = reader.optional("introductoryOffer", StoreKitLegacyIntroductoryOffer.read)
            let offers = Expect.array(of: StoreKitOffer.read)
            let introductoryOffers = reader.optional("introductoryOffers", offers)
            let adHocOffers = reader.optional("adHocOffers", offers)
            let codeOffers = reader.optional("codeOffers", offers)
            let winbackOffers = reader.optional("winbackOffers", offers)
            let billingPlans = reader.optional("billingPlans", Expect.array(of: StoreKitBillingPlan.read))
            guard let productID, let referenceName, let displayPrice, let familyShareable, let internalID,
                let localizations, let groupNumber, let period, let subscriptionGroupID,
                log.issues.count == issuesBefore
            else { return nil }
            return StoreKitSubscription(
                productID: productID, referenceName: referenceName, displayPrice: displayPrice,
                familyShareable: familyShareable, internalID: internalID, localizations: localizations,
                groupNumber: groupNumber, recurringSubscriptionPeriod: period,
                subscriptionGroupID: subscriptionGroupID, introductoryOffer: introductoryOffer ?? .absent,
                introductoryOffers: introductoryOffers, adHocOffers: adHocOffers, codeOffers: codeOffers,
                winbackOffers: winbackOffers, billingPlans: billingPlans, unknownKeys: reader.unknownKeys)
        }
    }

    /// The JSON for this subscription, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["productID"] = .string(productID)
        object["referenceName"] = referenceName.map { .string($0) } ?? .null
        object["type"] = .string(StoreKitProductType.recurringSubscription.rawValue)
        object["displayPrice"] = .string(displayPrice)
        object["familyShareable"] = .bool(familyShareable)
        object["internalID"] = .string(internalID)
        object["localizations"] = .array(localizations.map { $0.jsonValue() })
        object["groupNumber"] = .integer(groupNumber)
        object["recurringSubscriptionPeriod"] = .string(recurringSubscriptionPeriod.rawValue)
        object["subscriptionGroupID"] = .string(subscriptionGroupID)
        object["introductoryOffer"] = introductoryOffer.jsonValue
        object["introductoryOffers"] = introductoryOffers.map { .array($0.map { $0.jsonValue() }) }
        object["adHocOffers"] = adHocOffers.map { .array($0.map { $0.jsonValue() }) }
        object["codeOffers"] = codeOffers.map { .array($0.map { $0.jsonValue() }) }
        object["winbackOffers"] = winbackOffers.map { .array($0.map { $0.jsonValue() }) }
        object["billingPlans"] = billingPlans.map { .array($0.map { $0.jsonValue() }) }
        return .object(object.sortedForXcode())
    }
}
