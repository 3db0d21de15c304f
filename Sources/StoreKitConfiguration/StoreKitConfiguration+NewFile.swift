extension StoreKitConfiguration {
    /// A new, empty configuration for export, in the top-level shape of a
    /// format 4.0 file (Xcode 16 and later):
    ///
    /// ```
    /// {
    ///   "appPolicies" : {
    ///     "eula" : "",
    ///     "policies" : [
    ///       {
    ///         "locale" : "en_US",
    ///         "policyText" : "",
    ///         "policyURL" : ""
    ///       }
    ///     ]
    ///   },
    ///   "identifier" : "<8 uppercase hex digits>",
    ///   "nonRenewingSubscriptions" : [
    ///
    ///   ],
    ///   "products" : [
    ///
    ///   ],
    ///   "settings" : {
    ///
    ///   },
    ///   "subscriptionGroups" : [
    ///
    ///   ],
    ///   "version" : {
    ///     "major" : 4,
    ///     "minor" : 0
    ///   }
    /// }
    /// ```
    ///
    /// 4.0 is chosen because it is the newest format without the 5.0-only
    /// billing plans, and the oldest with win-back offers. Every real 4.0 file
    /// has exactly this `appPolicies`. Real 4.0 files list every settings
    /// toggle; `{}` leaves them at Xcode's defaults, as 1.x files do, since
    /// every settings key is optional. Subscriptions made with
    /// ``StoreKitSubscription/init(productID:referenceName:displayPrice:familyShareable:internalID:localizations:groupNumber:recurringSubscriptionPeriod:subscriptionGroupID:introductoryOffer:introductoryOffers:adHocOffers:codeOffers:winbackOffers:billingPlans:unknownKeys:)``
    /// take the matching 4.0 shape.
    public static func newFile(identifier: String = generateIdentifier()) -> StoreKitConfiguration {
        StoreKitConfiguration(
            identifier: identifier,
            version: StoreKitFormatVersion(major: 4, minor: 0),
            settings: [:],
            products: [],
            nonRenewingSubscriptions: [],
            subscriptionGroups: [],
            appPolicies: .object(["eula": .string(""), "policies": .array([defaultPolicy])]))
    }

    /// The one policy every real 4.0 file has.
    private static var defaultPolicy: StoreKitJSON {
        .object(["locale": .string("en_US"), "policyText": .string(""), "policyURL": .string("")])
    }

    /// Eight uppercase hex digits, as Xcode uses for file identifiers, group
    /// ids and the internal ids of products and offers in local files.
    public static func generateIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        return generateIdentifier(using: &generator)
    }

    /// ``generateIdentifier()`` from a given generator, for reproducible output.
    public static func generateIdentifier(using generator: inout some RandomNumberGenerator) -> String {
        let digits = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
