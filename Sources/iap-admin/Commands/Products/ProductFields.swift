import ArgumentParser
import CatalogAPI
import Foundation

/// The product fields as options, shared by `products create` and `products edit`. Each option sets one
/// field; fields not given are left out (create) or left as they are (edit). Anything richer (several
/// localizations at once, bulk files) goes through `--file`.
struct ProductFields: ParsableArguments {
    @Option(name: .customLong("name"), help: "The reference name: internal, 1-64 characters, unique in the app.")
    var referenceName: String?

    @Option(help: ArgumentHelp("The price, a decimal amount such as 0.99 (0 for a free subscription).", valueName: "amount"))
    var price: String?

    @Option(help: ArgumentHelp("The price's ISO 4217 currency (default: the product's, else USD).", valueName: "code"))
    var currency: String?

    @Option(name: .customLong("territory-price"),
            help: ArgumentHelp("A price for one territory, TERRITORY:CURRENCY:AMOUNT such as FRA:EUR:1.09; repeat for more (replaces them all).",
                               valueName: "price"))
    var territoryPrices: [String] = []

    @Option(help: ArgumentHelp("The locale --display-name and --description are for (default: the app's primary locale).",
                               valueName: "locale"))
    var locale: String?

    @Option(name: .customLong("display-name"), help: ArgumentHelp("The name shown in the App Store, 2-30 characters.", valueName: "text"))
    var displayName: String?

    @Option(help: ArgumentHelp("The description shown in the App Store, 1-45 characters (55 for an auto-renewable subscription).", valueName: "text"))
    var description: String?

    @Flag(inversion: .prefixedNo, help: "Whether family members share the purchase (once on, it stays on).")
    var familyShareable: Bool?

    @Flag(inversion: .prefixedNo, help: "Whether the product goes on sale once it passes review (default: yes).")
    var clearedForSale: Bool?

    @Option(name: .customLong("review-note"), help: ArgumentHelp("A note for App Review, up to 4,000 characters.", valueName: "text"))
    var reviewNote: String?

    @Option(help: ArgumentHelp("The subscription group, by id or reference name (auto-renewable subscriptions).", valueName: "group"))
    var group: String?

    @Option(help: "The subscription's level in its group, 1 the highest.")
    var level: Int?

    @Option(help: "The subscription's duration.")
    var duration: Components.Schemas.SubscriptionDuration?

    @Option(name: .customLong("offer-mode"), help: "The introductory offer's payment mode (with --offer-period).")
    var offerMode: Components.Schemas.IntroductoryOffer.PaymentModePayload?

    @Option(name: .customLong("offer-period"), help: "The introductory offer's period.")
    var offerPeriod: Components.Schemas.OfferPeriod?

    @Option(name: .customLong("offer-periods"), help: "How many periods the offer lasts (pay as you go), 1-12.")
    var offerPeriods: Int?

    @Option(name: .customLong("offer-amount"), help: ArgumentHelp("The offer's price (pay as you go, pay up front).", valueName: "amount"))
    var offerAmount: String?

    /// Whether any field is given.
    var isEmpty: Bool {
        referenceName == nil && price == nil && currency == nil && territoryPrices.isEmpty && locale == nil
            && displayName == nil && description == nil && familyShareable == nil && clearedForSale == nil
            && reviewNote == nil && group == nil && level == nil && duration == nil && offerMode == nil
            && offerPeriod == nil && offerPeriods == nil && offerAmount == nil
    }

    func validate() throws {
        if currency != nil, price == nil { throw ValidationError("--currency goes with --price") }
        if (offerPeriods != nil || offerAmount != nil || offerPeriod != nil) != (offerMode != nil)
            || (offerMode != nil) != (offerPeriod != nil) {
            throw ValidationError("an introductory offer needs --offer-mode and --offer-period together")
        }
        if locale != nil, displayName == nil, description == nil {
            throw ValidationError("--locale goes with --display-name and/or --description")
        }
        _ = try parsedTerritoryPrices()
    }

    /// The price, in the product's currency unless `--currency` names another.
    func parsedPrice(currentCurrency: String?) -> Components.Schemas.Price? {
        price.map { .init(currency: (currency ?? currentCurrency ?? "USD").uppercased(), amount: $0) }
    }

    func parsedTerritoryPrices() throws -> [Components.Schemas.TerritoryPrice]? {
        guard !territoryPrices.isEmpty else { return nil }
        return try territoryPrices.map { text in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
                throw ValidationError("--territory-price \(text): write TERRITORY:CURRENCY:AMOUNT, e.g. FRA:EUR:1.09")
            }
            return .init(territory: parts[0].uppercased(), currency: parts[1].uppercased(), amount: parts[2])
        }
    }

    var introductoryOffer: Components.Schemas.IntroductoryOffer? {
        guard let offerMode, let offerPeriod else { return nil }
        return .init(paymentMode: offerMode, period: offerPeriod, numberOfPeriods: offerPeriods, amount: offerAmount)
    }

    /// The localizations after applying `--locale`, `--display-name` and `--description` to `current`: the
    /// named locale is updated or added, the others kept. Nil when none of those options is given.
    func localizations(merging current: [Components.Schemas.Localization],
                       defaultLocale: String) throws -> [Components.Schemas.Localization]? {
        guard displayName != nil || description != nil else { return nil }
        let locale = self.locale ?? defaultLocale
        var result = current
        if let index = result.firstIndex(where: { $0.locale == locale }) {
            if let displayName { result[index].displayName = displayName }
            if let description { result[index].description = description }
        } else {
            guard let displayName, let description else {
                throw ValidationError("a new localization (\(locale)) needs both --display-name and --description")
            }
            result.append(.init(locale: locale, displayName: displayName, description: description))
        }
        return result
    }
}
