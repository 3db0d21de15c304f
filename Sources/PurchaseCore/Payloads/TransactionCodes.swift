/// Why the App Store refunded or revoked a transaction (Apple's `revocationReason`): 1 for an issue in the app,
/// 0 for any other reason. A number Apple adds later is kept as it came.
public struct RevocationReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Refunded for another reason, such as an accidental purchase.
    public static let other = Self(rawValue: 0)
    /// Refunded because of an actual or perceived issue within the app.
    public static let appIssue = Self(rawValue: 1)

    public var description: String { String(rawValue) }
}

/// Whether a transaction is the customer's purchase or a renewal the system started (Apple's
/// `transactionReason`), kept as a string.
public struct TransactionReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let purchase = Self(rawValue: "PURCHASE")
    public static let renewal = Self(rawValue: "RENEWAL")

    public var description: String { rawValue }
}

/// Whether the customer bought the transaction or has it through Family Sharing (Apple's
/// `inAppOwnershipType`), kept as a string.
public struct InAppOwnershipType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let purchased = Self(rawValue: "PURCHASED")
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")

    public var description: String { rawValue }
}
