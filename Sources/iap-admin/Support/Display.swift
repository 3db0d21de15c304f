import CatalogAPI
import Foundation

/// How values of the API read in tables and details.
enum Display {
    /// A timestamp as RFC 3339 in UTC, to the second: unambiguous for everyone in every time zone.
    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    static func price(_ price: Components.Schemas.Price?) -> String {
        price.map { "\($0.amount) \($0.currency)" } ?? "-"
    }

    static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// A review state in its colour: on sale green, waiting on Apple blue, needing the developer yellow,
    /// rejected red.
    static func state(_ state: Components.Schemas.ReviewState) -> Table.Cell {
        Table.Cell(state.rawValue, style(of: state))
    }

    static func style(of state: Components.Schemas.ReviewState) -> Style {
        switch state {
        case .readyForSale: .green
        case .waitingForReview, .inReview: .blue
        case .pendingDeveloperApproval, .approvedByDeveloper: .cyan
        case .developerActionRequired: .yellow
        case .rejected: .red
        case .developerRemovedFromSale: .magenta
        }
    }

    static func actions(_ actions: [Components.Schemas.Action]) -> String {
        actions.isEmpty ? "none" : actions.map(ActionName.command(for:)).joined(separator: ", ")
    }

    static func apps(_ apps: [String]?) -> String {
        apps.map { $0.joined(separator: ", ") } ?? "all"
    }

    static func offer(_ offer: Components.Schemas.IntroductoryOffer?) -> String? {
        guard let offer else { return nil }
        var text = "\(offer.paymentMode.rawValue) \(offer.period.rawValue)"
        if let periods = offer.numberOfPeriods, periods != 1 { text += " x\(periods)" }
        if let amount = offer.amount { text += " at \(amount)" }
        return text
    }
}
