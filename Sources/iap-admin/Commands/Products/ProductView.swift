import CatalogAPI

/// A product for people: its identity and state, then its live and draft revisions side by side (the live
/// one is what buyers see; the draft is what the next review will see), then what approval still needs.
enum ProductView {
    static func print(_ product: Components.Schemas.Product, app: String, groupNames: [String: String] = [:],
                      on console: Console) {
        var details = Details()
        details.add("Product", console.paint(product.productId, .bold) + " in \(app)")
        details.add("Type", product._type.rawValue)
        details.add("State", console.paint(product.state.rawValue, Display.style(of: product.state))
            + (product.onSale ? ", on sale" : ", not on sale"))
        details.add("Version", "\(product.version)")
        details.add("Next", Display.actions(product.allowedActions))
        details.add("Created", Display.time(product.createdAt))
        details.add("Updated", Display.time(product.updatedAt))
        details.print(on: console)
        console.print()
        revisions(product, groupNames: groupNames).print(on: console)
        printMissing(product, on: console)
    }

    /// What `approve` still needs, item by item; nothing when the product is complete.
    static func printMissing(_ product: Components.Schemas.Product, on console: Console) {
        guard !product.missingForApproval.isEmpty else {
            if product.state == .pendingDeveloperApproval {
                console.print("Complete: ready for " + console.paint("admin-cli approve \(product.productId)", .bold))
            }
            return
        }
        console.print()
        console.print(console.paint("Missing for approval:", .yellow))
        for item in product.missingForApproval {
            console.print("  \(item.field): \(item.message)")
        }
    }

    /// The fields in rows and the revisions in columns: LIVE and DRAFT when both exist, with the rows that
    /// differ marked; otherwise the one there is.
    static func revisions(_ product: Components.Schemas.Product, groupNames: [String: String] = [:]) -> Table {
        let current = Components.Schemas.ProductContent(
            referenceName: product.referenceName, price: product.price, territoryPrices: product.territoryPrices,
            localizations: product.localizations, familyShareable: product.familyShareable,
            clearedForSale: product.clearedForSale, reviewNote: product.reviewNote,
            subscriptionGroupId: product.subscriptionGroupId, level: product.level, duration: product.duration,
            introductoryOffer: product.introductoryOffer)
        var columns: [(title: String, content: Components.Schemas.ProductContent)] = []
        if let live = product.live { columns.append(("LIVE", live)) }
        if let draft = product.draft { columns.append(("DRAFT", draft)) }
        if columns.isEmpty { columns.append(("CURRENT", current)) }
        let isSubscription = product._type == .autoRenewableSubscription

        let rows = fieldRows(columns.map(\.content), subscription: isSubscription, groupNames: groupNames)
        var table: Table
        if columns.count == 2 {
            table = Table("FIELD", columns[0].title, columns[1].title, "")
        } else {
            table = Table("FIELD", columns[0].title)
        }
        for row in rows {
            var cells = [Table.Cell(row.label)] + row.values.map { Table.Cell($0) }
            if columns.count == 2, row.values[0] != row.values[1] {
                cells[2].style = .yellow
                cells.append(Table.Cell("changed", .yellow))
            }
            table.add(cells)
        }
        return table
    }

    private static func fieldRows(_ contents: [Components.Schemas.ProductContent], subscription: Bool,
                                  groupNames: [String: String]) -> [(label: String, values: [String])] {
        func row(_ label: String, _ value: (Components.Schemas.ProductContent) -> String?) -> (String, [String]) {
            (label, contents.map { value($0) ?? "-" })
        }
        var rows: [(label: String, values: [String])] = [
            row("Reference name") { $0.referenceName },
            row("Price") { $0.price.map { "\($0.amount) \($0.currency)" } },
        ]
        if contents.contains(where: { !($0.territoryPrices ?? []).isEmpty }) {
            rows.append(row("Territory prices") { content in
                guard let prices = content.territoryPrices, !prices.isEmpty else { return nil }
                return prices.map { "\($0.territory) \($0.amount) \($0.currency)" }.joined(separator: ", ")
            })
        }
        var locales: [String] = []
        for content in contents {
            for localization in content.localizations ?? [] where !locales.contains(localization.locale) {
                locales.append(localization.locale)
            }
        }
        if locales.isEmpty { rows.append(row("Localizations") { _ in nil }) }
        for locale in locales {
            rows.append(row("Name (\(locale))") { $0.localizations?.first { $0.locale == locale }?.displayName })
            rows.append(row("Description (\(locale))") { $0.localizations?.first { $0.locale == locale }?.description })
        }
        rows.append(row("Family shareable") { $0.familyShareable.map(Display.yesNo) })
        rows.append(row("Cleared for sale") { $0.clearedForSale.map(Display.yesNo) })
        rows.append(row("Review note") { $0.reviewNote.map(abbreviated) })
        if subscription || contents.contains(where: { $0.subscriptionGroupId != nil }) {
            rows.append(row("Subscription group") { content in
                content.subscriptionGroupId.map { id in groupNames[id].map { "\($0) (\(id.prefix(8)))" } ?? id }
            })
            rows.append(row("Level") { $0.level.map(String.init) })
            rows.append(row("Duration") { $0.duration?.rawValue })
            rows.append(row("Introductory offer") { Display.offer($0.introductoryOffer) })
        }
        return rows
    }

    /// Long notes on one line, cut to what a table can hold.
    private static func abbreviated(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 48 ? line.prefix(47) + "…" : line
    }
}
