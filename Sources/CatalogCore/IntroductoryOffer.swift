/// An auto-renewable subscription's introductory offer. Like prices, it is not reviewed: it takes effect at once.
public struct IntroductoryOffer: Sendable, Hashable, Codable {
    /// How the customer pays during the offer.
    public enum PaymentMode: String, CaseIterable, Sendable, Codable {
        /// Nothing, for `numberOfPeriods` periods.
        case freeTrial = "FREE_TRIAL"
        /// `amount` for each of `numberOfPeriods` periods.
        case payAsYouGo = "PAY_AS_YOU_GO"
        /// `amount` once, for `numberOfPeriods` periods.
        case payUpFront = "PAY_UP_FRONT"
    }

    public var paymentMode: PaymentMode
    public var period: OfferPeriod
    public var numberOfPeriods: Int
    /// The offer's price in the product's currency; none for a free trial.
    public var amount: DecimalAmount?

    public init(paymentMode: PaymentMode, period: OfferPeriod, numberOfPeriods: Int = 1, amount: DecimalAmount? = nil) {
        self.paymentMode = paymentMode
        self.period = period
        self.numberOfPeriods = numberOfPeriods
        self.amount = amount
    }

    func problems(field: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if !Limits.introductoryOfferPeriods.contains(numberOfPeriods) {
            problems.append(FieldProblem(field: "\(field).numberOfPeriods", rule: "range",
                                         message: "must be between 1 and 12"))
        }
        switch (paymentMode, amount) {
        case (.freeTrial, .some):
            problems.append(FieldProblem(field: "\(field).amount", rule: "notAllowed",
                                         message: "a free trial has no amount"))
        case (.payAsYouGo, .none), (.payUpFront, .none):
            problems.append(FieldProblem(field: "\(field).amount", rule: "required",
                                         message: "a paid offer needs an amount"))
        case (.payAsYouGo, .some(let amount)), (.payUpFront, .some(let amount)):
            problems += amount.problems(field: "\(field).amount")
            if amount.isValid && amount.isZero {
                problems.append(FieldProblem(field: "\(field).amount", rule: "positive",
                                             message: "a paid offer's amount must be above zero; use FREE_TRIAL"))
            }
        case (.freeTrial, .none):
            break
        }
        return problems
    }
}
