/// An introductory, promotional (ad hoc), offer-code or win-back offer.
///
/// One type serves all four lists because they share their core keys; the
/// keys only some lists use are optional:
/// - ad hoc offers add `offerID` and `referenceName`;
/// - code offers add `referenceName`, `eligibility` and `isStackable`;
/// - win-back offers add `offerID`, `referenceName` and `isEligible`;
/// - from format 5.0 any offer may carry `billingPlanType`.
public struct StoreKitOffer: Sendable, Equatable {
    /// Eight hex digits in local files, a lowercase UUID for 6.3 code offers.
    public var internalID: String
    public var paymentMode: StoreKitPaymentMode
    /// An ISO 8601 duration such as `P3D`, `P1W`, `P2W`, `P1M` or `P1Y`.
    public var subscriptionPeriod: String
    /// Always present for `payAsYouGo`; often absent for the other modes in older files.
    public var numberOfPeriods: Int?
    /// Exact decimal text. Present for paid modes, and sometimes left behind on
    /// a `free` offer after its mode was switched; kept either way. May be `""`
    /// (a price never filled in), which is no amount.
    public var displayPrice: String?
    public var offerID: String?
    public var referenceName: String?
    /// Some of `new`, `existing`, `expired`, in the file's order (which Xcode reshuffles).
    public var eligibility: [String]?
    public var isStackable: Bool?
    public var isEligible: Bool?
    /// `BILLED_UPFRONT` or `MONTHLY` in format 5.0 and later.
    public var billingPlanType: String?
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(
        internalID: String = StoreKitConfiguration.generateIdentifier(),
        paymentMode: StoreKitPaymentMode,
        subscriptionPeriod: String,
        numberOfPeriods: Int? = nil,
        displayPrice: String? = nil,
        offerID: String? = nil,
        referenceName: String? = nil,
        eligibility: [String]? = nil,
        isStackable: Bool? = nil,
        isEligible: Bool? = nil,
        billingPlanType: String? = nil,
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.internalID = internalID
        self.paymentMode = paymentMode
        self.subscriptionPeriod = subscriptionPeriod
        self.numberOfPeriods = numberOfPeriods
        self.displayPrice = displayPrice
        self.offerID = offerID
        self.referenceName = referenceName
        self.eligibility = eligibility
        self.isStackable = isStackable
        self.isEligible = isEligible
        self.billingPlanType = billingPlanType
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = [
        "billingPlanType", "displayPrice", "eligibility", "internalID", "isEligible", "isStackable",
        "numberOfPeriods", "offerID", "paymentMode", "referenceName", "subscriptionPeriod",
    ]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitOffer? {
        let issuesBefore = log.issues.count
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let internalID = reader.required("internalID", Expect.string)
        let paymentMode = reader.required("paymentMode", Expect.string)
        let subscriptionPeriod = reader.required("subscriptionPeriod", readOfferPeriod)
        let numberOfPeriods = reader.optional("numberOfPeriods", Expect.positiveInteger)
        let displayPrice = reader.optional("displayPrice", Expect.offerPrice)
        let offerID = reader.optional("offerID", Expect.string)
        let referenceName = reader.optional("referenceName", Expect.string)
        let eligibility = reader.optional("eligibility", Expect.stringArray)
        let isStackable = reader.optional("isStackable", Expect.bool)
        let isEligible = reader.optional("isEligible", Expect.bool)
        let billingPlanType = reader.optional("billingPlanType", Expect.string)
        // An optional key that is present but invalid reads as nil too; the issue count tells them apart.
        guard let internalID, let paymentMode, let subscriptionPeriod, log.issues.count == issuesBefore else {
            return nil
        }
        return StoreKitOffer(
            internalID: internalID, paymentMode: StoreKitPaymentMode(rawValue: paymentMode),
            subscriptionPeriod: subscriptionPeriod, numberOfPeriods: numberOfPeriods, displayPrice: displayPrice,
            offerID: offerID, referenceName: referenceName, eligibility: eligibility, isStackable: isStackable,
            isEligible: isEligible, billingPlanType: billingPlanType, unknownKeys: reader.unknownKeys)
    }

    /// Offer periods are not limited to the six renewal periods (`P3D` and
    /// `P2W` occur), so only the ISO 8601 form of whole days, weeks, months or
    /// years is checked.
    private static func readOfferPeriod(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> String? {
        guard let text = Expect.string(value, at: path, log: log) else { return nil }
        guard isDuration(text) else {
            log.add(
                "subscriptionPeriod \(XcodeJSONWriter.quoted(text)) is not an ISO 8601 duration such as P3D, P1W, P1M or P1Y",
                at: path)
            return nil
        }
        return text
    }

    private static func isDuration(_ text: String) -> Bool {
        guard text.hasPrefix("P"), let unit = text.last, "DWMY".contains(unit) else { return false }
        let count = text.dropFirst().dropLast()
        return !count.isEmpty && !count.hasPrefix("0") && count.allSatisfy(\.isASCIIDigit)
    }

    /// The JSON for this offer, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["internalID"] = .string(internalID)
        object["paymentMode"] = .string(paymentMode.rawValue)
        object["subscriptionPeriod"] = .string(subscriptionPeriod)
        object["numberOfPeriods"] = numberOfPeriods.map { .integer($0) }
        object["displayPrice"] = displayPrice.map { .string($0) }
        object["offerID"] = offerID.map { .string($0) }
        object["referenceName"] = referenceName.map { .string($0) }
        object["eligibility"] = eligibility.map { .array($0.map { .string($0) }) }
        object["isStackable"] = isStackable.map { .bool($0) }
        object["isEligible"] = isEligible.map { .bool($0) }
        object["billingPlanType"] = billingPlanType.map { .string($0) }
        return .object(object.sortedForXcode())
    }
}
