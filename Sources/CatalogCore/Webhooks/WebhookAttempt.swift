import Foundation

/// One attempt to deliver one event to one endpoint, as the endpoint's deliveries list it.
public struct WebhookAttempt: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// The receiver answered 2xx: the event is delivered.
        case delivered
        /// Another status, no answer, or no answer in time: tried again later.
        case failed
        /// Not sent: the URL's host resolved to an address a webhook may not reach (tried again later, as a
        /// failure, since DNS may change back).
        case refused
    }

    /// Increases with every attempt recorded, across endpoints: the key of the deliveries' pages.
    public let id: Int64
    /// The event's sequence.
    public let sequence: Int64
    /// 1 for the event's first attempt.
    public let attempt: Int
    public let at: Date
    public let duration: Duration
    /// The status the receiver answered, if it answered.
    public let status: Int?
    public let outcome: Outcome
    /// Why it failed, in a few words (never the secret, never the receiver's body).
    public let error: String?

    public init(id: Int64, sequence: Int64, attempt: Int, at: Date, duration: Duration, status: Int?,
                outcome: Outcome, error: String?) {
        self.id = id
        self.sequence = sequence
        self.attempt = attempt
        self.at = at
        self.duration = duration
        self.status = status
        self.outcome = outcome
        self.error = error
    }
}
