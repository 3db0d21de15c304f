/// A billing plan of an auto-renewable subscription (format 5.0 and later):
/// monthly billing with a twelve-month commitment, or the whole year up front.
public struct StoreKitBillingPlan: Sendable, Equatable {
    /// `BILLED_UPFRONT` or `MONTHLY`.
    public var billingPlanType: String
    /// Exact decimal text; need not equal the subscription's own `displayPrice`.
    public var displayPrice: String
    /// Exact decimal text for the whole commitment.
    public var commitmentDisplayPrice: String?
    /// Eight hex digits locally; `<ASC id>_BILLED_UPFRONT` in 6.3 synced files.
    public var internalID: String?
    public var isEnabled: Bool?
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(
        billingPlanType: String,
        displayPrice: String,
        commitmentDisplayPrice: String? = nil,
        internalID: String? = StoreKitConfiguration.generateIdentifier(),
        isEnabled: Bool? = true,
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.billingPlanType = billingPlanType
        self.displayPrice = displayPrice
        self.commitmentDisplayPrice = commitmentDisplayPrice
        self.internalID = internalID
        self.isEnabled = isEnabled
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = ["billingPlanType", "commitmentDisplayPrice", "displayPrice", "internalID", "isEnabled"]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitBillingPlan? {
        let issuesBefore = log.issues.count
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let billingPlanType = reader.required("billingPlanType", Expect.string)
        let displayPrice = reader.required("displayPrice", Expect.price)
        let commitmentDisplayPrice = reader.optional("commitmentDisplayPrice", Expect.price)
        let internalID = reader.optional("internalID", Expect.string)
        let isEnabled = reader.optional("isEnabled", Expect.bool)
        guard let billingPlanType, let displayPrice, log.issues.count == issuesBefore else { return nil }
        return StoreKitBillingPlan(
            billingPlanType: billingPlanType, displayPrice: displayPrice,
            commitmentDisplayPrice: commitmentDisplayPrice, internalID: internalID, isEnabled: isEnabled,
            unknownKeys: reader.unknownKeys)
    }

    /// The JSON for this billing plan, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["billingPlanType"] = .string(billingPlanType)
        object["displayPrice"] = .string(displayPrice)
        object["commitmentDisplayPrice"] = commitmentDisplayPrice.map { .string($0) }
        object["internalID"] = internalID.map { .string($0) }
        object["isEnabled"] = isEnabled.map { .bool($0) }
        return .object(object.sortedForXcode())
    }
}
