import ArgumentParser

/// `products`: the in-app purchases of an app.
struct Products: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, show, edit and delete in-app purchase products.",
        discussion: """
            A product is created with its productId, reference name and type; the rest may come later, and \
            `approve` checks that it is complete. Types: consumable, non-consumable, auto-renewable-subscription, \
            free-subscription, non-renewing-subscription.

            Example:
              admin-cli products create coins.100 --app com.example.game --type consumable --name "100 coins"
              admin-cli products list --app com.example.game --state pending-developer-approval
            """,
        subcommands: [Create.self, List.self, Show.self, Edit.self, Delete.self])
}
