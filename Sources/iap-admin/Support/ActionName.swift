import CatalogAPI
import Foundation

/// The CLI's name for each lifecycle action of the API: developer actions are top-level commands
/// (`cancel-change`), review actions live under `review` (`review request-changes`).
enum ActionName {
    static func command(for action: Components.Schemas.Action) -> String {
        switch action {
        case .startReview: "review start"
        case .accept: "review accept"
        case .requestChanges: "review request-changes"
        case .reject: "review reject"
        default: action.rawValue.replacingOccurrences(of: "_", with: "-")
        }
    }
}
