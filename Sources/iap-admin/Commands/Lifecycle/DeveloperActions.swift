import ArgumentParser
import CatalogAPI

// The developer's lifecycle actions, one command each (roles admin and developer).

/// `approve`: approve a product after testing it in the sandbox.
struct Approve: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a product after testing it in the sandbox.",
        discussion: """
            PENDING_DEVELOPER_APPROVAL to APPROVED_BY_DEVELOPER. The product must be complete for its type; if it is not, every missing item is listed (exit 67).

            Example:
              admin-cli approve coins.100 --app com.example.game
            """)
    static let action = Components.Schemas.Action.approve

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `submit`: submit an approved product for App Review.
struct Submit: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit an approved product for App Review.",
        discussion: """
            APPROVED_BY_DEVELOPER to WAITING_FOR_REVIEW.

            Example:
              admin-cli submit coins.100 --app com.example.game
            """)
    static let action = Components.Schemas.Action.submit

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `withdraw`: withdraw a submission that is still waiting for review.
struct Withdraw: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw",
        abstract: "Withdraw a submission that is still waiting for review.",
        discussion: """
            WAITING_FOR_REVIEW back to the state the submission came from.

            Example:
              admin-cli withdraw coins.100 --app com.example.game --reason \"price change\"
            """)
    static let action = Components.Schemas.Action.withdraw

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `resubmit`: resubmit a product after making the changes App Review asked for.
struct Resubmit: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "resubmit",
        abstract: "Resubmit a product after making the changes App Review asked for.",
        discussion: """
            DEVELOPER_ACTION_REQUIRED to WAITING_FOR_REVIEW. Edit the product first (products edit).

            Example:
              admin-cli resubmit coins.100 --app com.example.game
            """)
    static let action = Components.Schemas.Action.resubmit

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `cancel-change`: discard a change that App Review sent back, keeping the live product.
struct CancelChange: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-change",
        abstract: "Discard a change that App Review sent back, keeping the live product.",
        discussion: """
            DEVELOPER_ACTION_REQUIRED back to the live state (READY_FOR_SALE or DEVELOPER_REMOVED_FROM_SALE); only for a product that is live. The draft is discarded.

            Example:
              admin-cli cancel-change coins.100 --app com.example.game
            """)
    static let action = Components.Schemas.Action.cancelChange

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `submit-change`: submit the draft of a live product (a change) for review.
struct SubmitChange: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit-change",
        abstract: "Submit the draft of a live product (a change) for review.",
        discussion: """
            READY_FOR_SALE or DEVELOPER_REMOVED_FROM_SALE to WAITING_FOR_REVIEW, when the draft differs from the live revision in reviewed fields. The live revision stays on sale meanwhile.

            Example:
              admin-cli products edit coins.100 --display-name \"120 Coins\" && admin-cli submit-change coins.100
            """)
    static let action = Components.Schemas.Action.submitChange

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `remove-from-sale`: take a live product off sale.
struct RemoveFromSale: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-from-sale",
        abstract: "Take a live product off sale.",
        discussion: """
            READY_FOR_SALE to DEVELOPER_REMOVED_FROM_SALE (clears it for sale no more); restore-to-sale undoes it.

            Example:
              admin-cli remove-from-sale coins.100 --app com.example.game --reason \"end of season\"
            """)
    static let action = Components.Schemas.Action.removeFromSale

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}

/// `restore-to-sale`: put a product that was removed from sale back on sale.
struct RestoreToSale: ProductActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore-to-sale",
        abstract: "Put a product that was removed from sale back on sale.",
        discussion: """
            DEVELOPER_REMOVED_FROM_SALE to READY_FOR_SALE.

            Example:
              admin-cli restore-to-sale coins.100 --app com.example.game
            """)
    static let action = Components.Schemas.Action.restoreToSale

    @OptionGroup var options: ActionOptions

    func run() async throws { try await perform() }
}
