import Foundation

/// What one call to one verifyReceipt endpoint produced, as the transport saw it. The client reports it;
/// ``VerifyReceiptAnswerRule`` decides what it means.
public enum VerifyReceiptExchange: Sendable, Hashable {
    /// The endpoint answered: an HTTP status and the whole body (within the client's size limit).
    case answered(httpStatus: Int, body: Data)
    /// The body was larger than the client accepts (the limit, in bytes).
    case answerTooLarge(limit: Int)
    /// No complete answer within the timeout.
    case timedOut
    /// The connection could not be made or broke; the transport's words, which never hold the request.
    case connectionFailed(String)
}

/// What to do after one exchange: ask the other endpoint, or stop with an outcome.
public enum VerifyReceiptStep: Sendable, Hashable {
    /// Ask this endpoint next, in the same attempt.
    case ask(VerifyReceiptEndpoint)
    /// The attempt is over.
    case finished(ReceiptOutcome)
}
