import CatalogAPI

/// The generated answer of an operation whose errors are problem details (the `default` response of each
/// operation in openapi.yaml). The generated `default` accessor gives them, so that ``Session/answer(_:_:)``
/// turns them into the command's failure in one place for every operation.
protocol ProblemAnswering: Sendable {
    /// The problem details the server answered; throws when the answer is another one.
    var `default`: Components.Responses.Problem { get throws }
}

// The operations the commands call.
extension Operations.ApplyCatalogFile.Output: ProblemAnswering {}
extension Operations.CreateApp.Output: ProblemAnswering {}
extension Operations.CreateKey.Output: ProblemAnswering {}
extension Operations.CreateProduct.Output: ProblemAnswering {}
extension Operations.CreateSubscriptionGroup.Output: ProblemAnswering {}
extension Operations.CreateWebhook.Output: ProblemAnswering {}
extension Operations.DeleteProduct.Output: ProblemAnswering {}
extension Operations.DeleteWebhook.Output: ProblemAnswering {}
extension Operations.ExportStoreKit.Output: ProblemAnswering {}
extension Operations.GetApp.Output: ProblemAnswering {}
extension Operations.GetCatalogFile.Output: ProblemAnswering {}
extension Operations.GetCurrentKey.Output: ProblemAnswering {}
extension Operations.GetProduct.Output: ProblemAnswering {}
extension Operations.GetProductHistory.Output: ProblemAnswering {}
extension Operations.GetProductIdentifiers.Output: ProblemAnswering {}
extension Operations.GetReadiness.Output: ProblemAnswering {}
extension Operations.GetSubscriptionGroup.Output: ProblemAnswering {}
extension Operations.ImportStoreKit.Output: ProblemAnswering {}
extension Operations.ListApps.Output: ProblemAnswering {}
extension Operations.ListEvents.Output: ProblemAnswering {}
extension Operations.ListHistory.Output: ProblemAnswering {}
extension Operations.ListKeys.Output: ProblemAnswering {}
extension Operations.ListProducts.Output: ProblemAnswering {}
extension Operations.ListSubscriptionGroups.Output: ProblemAnswering {}
extension Operations.ListWebhookDeliveries.Output: ProblemAnswering {}
extension Operations.ListWebhooks.Output: ProblemAnswering {}
extension Operations.PerformAction.Output: ProblemAnswering {}
extension Operations.PlanCatalogFile.Output: ProblemAnswering {}
extension Operations.RedeliverWebhook.Output: ProblemAnswering {}
extension Operations.RevokeKey.Output: ProblemAnswering {}
extension Operations.UpdateApp.Output: ProblemAnswering {}
extension Operations.UpdateProduct.Output: ProblemAnswering {}
extension Operations.UpdateSubscriptionGroup.Output: ProblemAnswering {}
extension Operations.VerifyHistory.Output: ProblemAnswering {}
