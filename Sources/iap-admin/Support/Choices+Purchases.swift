import ArgumentParser
import CatalogAPI

// The purchases' enumerations as command-line values (see ``CommandLineChoice``).

extension Components.Schemas.SubmissionStatus: ExpressibleByArgument, CommandLineChoice {}

extension Components.Schemas.StoreEnvironment: ExpressibleByArgument, CommandLineChoice {
    /// Written as the App Store writes them (`Production`, `LocalTesting`), accepted in any case.
    public var argumentName: String { rawValue }
}

extension Operations.ListTransactions.Input.Query.OrderPayload: ExpressibleByArgument, CommandLineChoice {}

extension Components.Schemas.SignalKind: ExpressibleByArgument, CommandLineChoice {
    /// Written as the API writes them (`sharedTransaction`), accepted in any case.
    public var argumentName: String { rawValue }
}
