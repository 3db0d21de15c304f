import ArgumentParser
import CatalogAPI

/// `review`: App Review's decisions, reported by the review channel (roles admin and reviewer).
struct Review: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report App Review's decisions: start, accept, request-changes, reject.",
        discussion: """
            For a reviewer key: a person relaying Apple's verdict, or an integration. request-changes and \
            reject need --reason, which the developer reads in the history.

            Example:
              admin-cli review start coins.100 --app com.example.game
              admin-cli review accept coins.100 --app com.example.game
            """,
        subcommands: [Start.self, Accept.self, RequestChanges.self, Reject.self])
}

extension Review {
    /// `review start`: App Review has picked the submission up.
    struct Start: ProductActionCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Start reviewing a submitted product.",
            discussion: """
                WAITING_FOR_REVIEW to IN_REVIEW; reviewed fields cannot be edited while in review.

                Example:
                  admin-cli review start coins.100 --app com.example.game
                """)
        static let action = Components.Schemas.Action.startReview

        @OptionGroup var options: ActionOptions

        func run() async throws { try await perform() }
    }

    /// `review accept`: the reviewed revision goes live.
    struct Accept: ProductActionCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a product in review: the reviewed revision goes live.",
            discussion: """
                IN_REVIEW to READY_FOR_SALE, or DEVELOPER_REMOVED_FROM_SALE when the product is not cleared for sale.

                Example:
                  admin-cli review accept coins.100 --app com.example.game
                """)
        static let action = Components.Schemas.Action.accept

        @OptionGroup var options: ActionOptions

        func run() async throws { try await perform() }
    }

    /// `review request-changes`: the developer must edit and resubmit.
    struct RequestChanges: ProductActionCommand {
        static let configuration = CommandConfiguration(
            commandName: "request-changes",
            abstract: "Send a product in review back to the developer for changes (--reason required).",
            discussion: """
                IN_REVIEW to DEVELOPER_ACTION_REQUIRED. A live product stays on sale as it was.

                Example:
                  admin-cli review request-changes coins.100 --app com.example.game --reason "Screenshot missing"
                """)
        static let action = Components.Schemas.Action.requestChanges

        @OptionGroup var options: ActionOptions

        func run() async throws { try await perform() }
    }

    /// `review reject`: final; the productId stays reserved.
    struct Reject: ProductActionCommand {
        static let configuration = CommandConfiguration(
            commandName: "reject",
            abstract: "Reject a product in review, for good (--reason required).",
            discussion: """
                IN_REVIEW to REJECTED, which is terminal: the product leaves sale and its productId stays reserved.

                Example:
                  admin-cli review reject coins.100 --app com.example.game --reason "Violates guideline 3.1.1"
                """)
        static let action = Components.Schemas.Action.reject

        @OptionGroup var options: ActionOptions

        func run() async throws { try await perform() }
    }
}
