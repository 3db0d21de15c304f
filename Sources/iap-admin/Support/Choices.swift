import ArgumentParser
import CatalogAPI
import Foundation

/// The API's enumerations as command-line values. Each is accepted in the API's spelling or in lower case
/// with hyphens (`READY_FOR_SALE`, `ready-for-sale`); help and completions offer the latter.
public protocol CommandLineChoice: ExpressibleByArgument, CaseIterable, RawRepresentable<String> {
    /// Other accepted names, such as `auto-renewable` for `AUTO_RENEWABLE_SUBSCRIPTION`.
    static var aliases: [String: Self] { get }
    /// The spelling shown in help and offered by completions.
    var argumentName: String { get }
}

extension CommandLineChoice {
    public static var aliases: [String: Self] { [:] }

    public var argumentName: String { rawValue.lowercased().replacingOccurrences(of: "_", with: "-") }

    public init?(argument: String) {
        let wanted = Self.comparable(argument)
        if let match = Self.allCases.first(where: { Self.comparable($0.rawValue) == wanted }) {
            self = match
        } else if let alias = Self.aliases.first(where: { Self.comparable($0.key) == wanted }) {
            self = alias.value
        } else {
            return nil
        }
    }

    public static var allValueStrings: [String] { allCases.map(\.argumentName) }

    public var defaultValueDescription: String { argumentName }

    /// Case, hyphens and underscores do not matter.
    private static func comparable(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber }
    }
}

extension Components.Schemas.PurchaseType: ExpressibleByArgument, CommandLineChoice {
    public static var aliases: [String: Self] {
        ["auto-renewable": .autoRenewableSubscription, "subscription": .autoRenewableSubscription,
         "free": .freeSubscription, "non-renewing": .nonRenewingSubscription]
    }
}

extension Components.Schemas.ReviewState: ExpressibleByArgument, CommandLineChoice {}
extension Components.Schemas.Role: ExpressibleByArgument, CommandLineChoice {}
extension Components.Schemas.SubscriptionDuration: ExpressibleByArgument, CommandLineChoice {}
extension Components.Schemas.OfferPeriod: ExpressibleByArgument, CommandLineChoice {}
extension Components.Schemas.IntroductoryOffer.PaymentModePayload: ExpressibleByArgument, CommandLineChoice {}

extension Components.Schemas.ClearableField: ExpressibleByArgument, CommandLineChoice {
    /// Field names read as the API writes them.
    public var argumentName: String { rawValue }
}

extension Components.Schemas.Action: ExpressibleByArgument, CommandLineChoice {
    /// The CLI's command names name the actions too (`review-start` is `start_review`).
    public static var aliases: [String: Self] {
        ["review-start": .startReview, "review-accept": .accept, "review-request-changes": .requestChanges,
         "review-reject": .reject]
    }
}

extension Components.Schemas.HistoryKind: ExpressibleByArgument, CommandLineChoice {}
extension Operations.ListHistory.Input.Query.OrderPayload: ExpressibleByArgument, CommandLineChoice {}
