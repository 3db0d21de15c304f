import CatalogCore
import StoreKitConfiguration

/// Introductory offers both ways. The catalog holds one introductory offer per subscription (payment mode,
/// period, number of periods, amount); a file may hold more, and more kinds, which stay with the product.
enum OfferMapping {
    /// What a file's offer is in the catalog.
    enum CatalogOffer: Equatable {
        case offer(IntroductoryOffer)
        /// `paymentMode: "none"` (seen in an old real file): no offer the catalog can hold.
        case none
        /// Not an offer the catalog can read; the problems' fields are relative to the offer.
        case invalid([FieldProblem])

        var offer: IntroductoryOffer? {
            if case .offer(let offer) = self { offer } else { nil }
        }
    }

    static let paymentModes: [String: IntroductoryOffer.PaymentMode] = [
        "free": .freeTrial, "payAsYouGo": .payAsYouGo, "payUpFront": .payUpFront,
    ]

    /// The catalog's offer for an offer's members. A `displayPrice` left behind on a free offer (real files
    /// have them) is not an amount: the catalog ignores it and the file keeps it. An empty `displayPrice` (a price
    /// never filled in) is no amount either: a free offer needs none, a paid one is refused for lacking one.
    static func catalogOffer(paymentMode: String, subscriptionPeriod: String, numberOfPeriods: Int?,
                             displayPrice: String?) -> CatalogOffer {
        if paymentMode == "none" { return .none }
        var problems: [FieldProblem] = []
        let mode = paymentModes[paymentMode]
        if mode == nil {
            problems.append(FieldProblem(field: "paymentMode", rule: "enum",
                                         message: "\"\(paymentMode.prefix(40))\" is not free, payAsYouGo or payUpFront"))
        }
        let period = OfferPeriod(rawValue: subscriptionPeriod)
        if period == nil {
            problems.append(FieldProblem(
                field: "subscriptionPeriod", rule: "enum",
                message: "\"\(subscriptionPeriod.prefix(40))\" is not one of \(OfferPeriod.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        guard let mode, let period, problems.isEmpty else { return .invalid(problems) }
        return .offer(IntroductoryOffer(paymentMode: mode, period: period, numberOfPeriods: numberOfPeriods ?? 1,
                                        amount: mode == .freeTrial ? nil : displayPrice.flatMap { $0.isEmpty ? nil : DecimalAmount($0) }))
    }

    static func catalogOffer(_ offer: StoreKitOffer) -> CatalogOffer {
        catalogOffer(paymentMode: offer.paymentMode.rawValue, subscriptionPeriod: offer.subscriptionPeriod,
                     numberOfPeriods: offer.numberOfPeriods, displayPrice: offer.displayPrice)
    }

    /// The catalog's offer for an offer object as stored, or `nil` when it is none the catalog holds.
    static func catalogOffer(_ object: StoreKitJSONObject) -> IntroductoryOffer? {
        guard let mode = object["paymentMode"]?.stringValue, let period = object["subscriptionPeriod"]?.stringValue
        else { return nil }
        return catalogOffer(paymentMode: mode, subscriptionPeriod: period, numberOfPeriods: object["numberOfPeriods"]?.intValue,
                            displayPrice: object["displayPrice"]?.stringValue).offer
    }

    /// Writes the catalog's offer into a file's offer object, keeping its other members (internal id,
    /// billing plan type, unknown keys).
    static func write(_ offer: IntroductoryOffer, into object: inout StoreKitJSONObject) {
        let mode: String = switch offer.paymentMode {
        case .freeTrial: "free"
        case .payAsYouGo: "payAsYouGo"
        case .payUpFront: "payUpFront"
        }
        object["paymentMode"] = .string(mode)
        object["subscriptionPeriod"] = .string(offer.period.rawValue)
        object["numberOfPeriods"] = .integer(offer.numberOfPeriods)
        object["displayPrice"] = offer.amount.map { .string($0.text) }
    }
}
