/// A price: an exact decimal amount in an ISO 4217 currency.
public struct Price: Sendable, Hashable, Codable {
    public var currency: String
    public var amount: DecimalAmount

    public init(currency: String, amount: DecimalAmount) {
        self.currency = currency
        self.amount = amount
    }

    func problems(field: String) -> [FieldProblem] {
        Identifiers.threeLetterCodeProblems(currency, field: "\(field).currency", what: "ISO 4217 currency")
            + amount.problems(field: "\(field).amount")
    }
}

/// A price for one territory, overriding the base price there.
public struct TerritoryPrice: Sendable, Hashable, Codable {
    /// ISO 3166-1 alpha-3, as App Store Connect names storefronts (`USA`, `FRA`).
    public var territory: String
    public var currency: String
    public var amount: DecimalAmount

    public init(territory: String, currency: String, amount: DecimalAmount) {
        self.territory = territory
        self.currency = currency
        self.amount = amount
    }

    func problems(field: String) -> [FieldProblem] {
        Identifiers.threeLetterCodeProblems(territory, field: "\(field).territory", what: "ISO 3166-1 alpha-3 territory")
            + Identifiers.threeLetterCodeProblems(currency, field: "\(field).currency", what: "ISO 4217 currency")
            + amount.problems(field: "\(field).amount")
    }
}
