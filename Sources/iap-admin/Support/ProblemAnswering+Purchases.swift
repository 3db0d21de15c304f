import CatalogAPI

// The purchases' operations the commands call (see ``ProblemAnswering``).
extension Operations.GetStoreSettings.Output: ProblemAnswering {}
extension Operations.GetSubmission.Output: ProblemAnswering {}
extension Operations.GetTransaction.Output: ProblemAnswering {}
extension Operations.GetTransactionSummary.Output: ProblemAnswering {}
extension Operations.ListSubmissions.Output: ProblemAnswering {}
extension Operations.ListTransactions.Output: ProblemAnswering {}
extension Operations.PutStoreSettings.Output: ProblemAnswering {}
extension Operations.RetrySubmission.Output: ProblemAnswering {}
extension Operations.CreateAccountTokens.Output: ProblemAnswering {}
extension Operations.GetAccount.Output: ProblemAnswering {}
extension Operations.ListSignals.Output: ProblemAnswering {}
