import ArgumentParser
import CatalogAPI
import Foundation
import OpenAPIRuntime

/// A catalog file's plan as people read it, on stdout: one line per group or product that changes, its field
/// changes below it with the revision each reaches, what stays out of the file, what is refused, a summary.
struct PlanView {
    let plan: Components.Schemas.CatalogPlan
    let app: String
    let console: Console

    func print() {
        let name = plan.fileName ?? "the file"
        console.print(console.paint("Plan of \(name) for \(app)", .bold) + " (fingerprint \(plan.fingerprint.prefix(12))…)")
        for group in plan.subscriptionGroups where group.action != .unchanged {
            console.print(mark(group.action.rawValue) + " group    " + group.referenceName + "  " + console.paint(group.path, .dim))
            for change in group.changes {
                console.print("      \(change.field): \(Self.text(change.old)) → \(Self.text(change.new))")
            }
        }
        for product in plan.products where product.action != .unchanged {
            let place = product.path.map { "  " + console.paint($0, .dim) } ?? ""
            console.print(mark(product.action.rawValue) + " product  " + product.productId + "  "
                + console.paint(product._type.rawValue, .dim) + place)
            if product.action == .update {
                for change in product.changes {
                    let revision: String = switch change.revision {
                    case .working: ""
                    case .live: "  " + console.paint("live at once", .green)
                    case .draft: "  " + console.paint("draft", .yellow)
                    }
                    console.print("      \(change.field): \(Self.text(change.old)) → \(Self.text(change.new))\(revision)")
                }
                if let after = product.stateAfter {
                    console.print("      state: \(product.state.rawValue) → \(after.rawValue)")
                }
            }
            if !product.followUp.isEmpty {
                let actions = product.followUp.map { $0.rawValue.replacingOccurrences(of: "_", with: "-") }
                console.print("      " + console.paint("then: " + actions.map { "admin-cli \($0) \(product.productId)" }
                    .joined(separator: "; "), .dim))
            }
        }
        for kept in plan.kept {
            console.print(console.paint("  kept     ", .dim) + kept.productId + "  " + console.paint(
                "not in the file: stays\(kept.deletable ? " (--allow-deletions deletes it)" : " (submitted: cannot be deleted)")",
                .dim))
        }
        if !plan.keptGroups.isEmpty {
            console.print(console.paint("  kept     groups not in the file, which stay: " + plan.keptGroups.joined(separator: ", "),
                                        .dim))
        }
        if !plan.refusals.isEmpty {
            console.print(console.paint("Refused, nothing can be applied until each is fixed:", .red))
            for refusal in plan.refusals {
                console.print("  \(refusal.path)\(refusal.productId.map { " (\($0))" } ?? ""): \(refusal.message)")
            }
        }
        let summary = plan.summary
        let groups = summary.groupsCreate + summary.groupsUpdate > 0
            ? "; groups: \(summary.groupsCreate) to create, \(summary.groupsUpdate) to update" : ""
        console.print("Plan: \(summary.create) to create, \(summary.update) to update, \(summary.delete) to delete, "
            + "\(summary.unchanged) unchanged\(groups)\(summary.kept > 0 ? "; \(summary.kept) kept" : "")"
            + "\(summary.refused > 0 ? "; \(summary.refused) refused" : "").")
    }

    private func mark(_ action: String) -> String {
        switch action {
        case "create": console.paint("+ create ", .green)
        case "update": console.paint("~ update ", .yellow)
        case "delete": console.paint("- delete ", .red)
        default: "  \(action)"
        }
    }

    /// A change's value in a few words: a price as `4.99 USD`, text as it is, anything else as compact JSON.
    static func text(_ value: OpenAPIValueContainer?) -> String {
        guard let value else { return "(none)" }
        if let text = value.value as? String { return "\"\(text.prefix(60))\"" }
        if let object = value.value as? [String: (any Sendable)?], let amount = object["amount"] as? String,
           let currency = object["currency"] as? String {
            return "\(amount) \(currency)" + ((object["territory"] as? String).map { " in \($0)" } ?? "")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return json.count > 80 ? json.prefix(79) + "…" : json
    }

    /// The productIds a plan creates, updates or deletes, for `--quiet`.
    static func changedIdentifiers(_ plan: Components.Schemas.CatalogPlan) -> [String] {
        plan.products.filter { $0.action != .unchanged }.map(\.productId)
    }

    /// `catalog plan`'s exit code: 67 when something is refused, 2 when changes are pending, else 0.
    static func exit(for plan: Components.Schemas.CatalogPlan) throws {
        if !plan.applicable {
            throw CommandFailure(.refused, "the plan refuses \(plan.refusals.count) step\(plan.refusals.count == 1 ? "" : "s"); "
                + "nothing can be applied until each is fixed")
        }
        if plan.hasChanges { throw ExitCode(ExitStatus.changesPending.rawValue) }
    }
}
