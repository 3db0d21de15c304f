import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import PurchaseCore

extension CatalogAPIHandler {
    /// The longest `?wait=N` a submission read holds, and how often a waiting read looks again for an outcome
    /// another process recorded.
    static let longestWait = 20
    static let outcomePoll: Duration = .seconds(1)
    /// The longest receipt taken, in characters (the document's `maxLength`): 255 KiB, so that a body one
    /// character longer still fits the route's 256 KiB and is refused for what it is.
    static let receiptLimit = 255 << 10

    /// Steps 6 to 9 of "server mode": a signed transaction verified now and recorded with its transaction, or a
    /// receipt stored and queued for the verification worker.
    func submitPurchase(_ input: Operations.SubmitPurchase.Input) async throws -> Operations.SubmitPurchase.Output {
        let body: PurchaseSubmissionBody? = if case .json(let json) = input.body {
            PurchaseSubmissionBody(signedTransaction: json.signedTransaction, receipt: json.receipt,
                                   accountToken: json.accountToken)
        } else {
            nil
        }
        switch try await intake(bundleID: input.path.bundleId, body: body) {
        case .final(let submission):
            return .ok(.init(body: .json(submission)))
        case .queued(let submission, let location):
            return .accepted(.init(headers: .init(location: location), body: .json(submission)))
        }
    }

    /// What the intake answers: a submission with its outcome (200), or one queued for verification (202, with
    /// where to read it).
    enum IntakeAnswer {
        case final(Components.Schemas.PurchaseSubmission)
        case queued(Components.Schemas.PurchaseSubmission, location: String)
    }

    /// The intake of one submission for `bundleID`, as the generated handler and the fast path
    /// (``PurchaseIntakeMiddleware``) take it; `body` is `nil` when it is not JSON.
    func intake(bundleID: String, body: PurchaseSubmissionBody?) async throws -> IntakeAnswer {
        let key = try Access.require(.submitPurchases)
        guard mayLookUp(app: bundleID, for: key) else { throw Self.noApp(bundleID) }
        guard let body else { throw Problem(status: .unsupportedMediaType) }
        let (proof, account) = try Self.submission(body)
        if !account.isEmpty {
            try accountLimiter.admitOrRefuse(AccountKey(bundleID: bundleID, token: account),
                                             title: "Too many submissions for this account",
                                             what: "submissions per second per account token")
        }
        guard let settings = try await storeSettings.settings(bundleID, from: database.storeSettings) else {
            throw Self.noApp(bundleID)
        }
        switch proof {
        case .signedTransaction(let text):
            let facts = try await verifiedTransaction(text, bundleID: bundleID, settings: settings)
            let intake = try await database.submissions.recordSigned(.init(
                bundleID: bundleID, keyID: key.id, accountToken: account, proof: proof, facts: facts, actor: key.actor,
                requestID: RequestScope.requestID))
            return .final(.init(intake.submission))
        case .receipt(let text):
            let intake = try await database.submissions.queueReceipt(.init(
                bundleID: bundleID, keyID: key.id, accountToken: account, receipt: text))
            if intake.created { signals.receiptsQueued() }
            let submission = Components.Schemas.PurchaseSubmission(intake.submission)
            if intake.submission.status.isFinal { return .final(submission) }
            return .queued(submission, location: Self.location(of: intake.submission))
        }
    }

    /// The proof and account token of a submission's body: exactly one proof, a token in one of its layouts.
    static func submission(_ body: PurchaseSubmissionBody) throws(CatalogError) -> (PurchaseProof, String) {
        var problems: [FieldProblem] = []
        var account = ""
        if let token = body.accountToken {
            if let parsed = AccountToken(parsing: token) {
                account = parsed.text
            } else {
                problems.append(FieldProblem(field: "accountToken", rule: "pattern", message: "must be \(AccountToken.rule)"))
            }
        }
        var proof: PurchaseProof?
        switch (body.signedTransaction, body.receipt) {
        case (let signed?, nil):
            if signed.isEmpty { problems.append(FieldProblem(field: "signedTransaction", rule: "minLength", message: "must not be empty")) }
            proof = .signedTransaction(signed)
        case (nil, let receipt?):
            let text = PurchaseProof.receipt(receipt).canonicalText
            if receipt.utf8.count > Self.receiptLimit {
                problems.append(FieldProblem(field: "receipt", rule: "maxLength",
                                             message: "is longer than \(Self.receiptLimit) characters"))
            } else if text.isEmpty || !Self.isBase64(text) {
                problems.append(FieldProblem(field: "receipt", rule: "base64", message: "must be the app receipt in base64"))
            }
            proof = .receipt(receipt)
        case (nil, nil):
            problems.append(FieldProblem(field: "signedTransaction", rule: "oneOf",
                                         message: "send exactly one of signedTransaction and receipt"))
        case (.some, .some):
            problems.append(FieldProblem(field: "receipt", rule: "oneOf",
                                         message: "send exactly one of signedTransaction and receipt, not both"))
        }
        guard problems.isEmpty, let proof else { throw .validationFailed(problems) }
        return (proof, account)
    }

    /// Whether `text` is all base64's alphabet, its bytes read as one buffer where they are one.
    private static func isBase64(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isBase64) } ?? text.utf8.allSatisfy(isBase64)
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
    }

    /// The facts of a signed transaction verified for the app's settings, or `422 invalid-proof` with the rule it
    /// broke.
    func verifiedTransaction(_ text: String, bundleID: String, settings: StoreSettings) async throws -> TransactionFacts {
        let verified: Verified<AppStoreTransaction>
        do {
            verified = try await verifier.verifyTransaction(text, for: Self.policy(bundleID, settings))
        } catch {
            throw Problem.invalidProof(code: error.code, detail: error.description)
        }
        do {
            return try TransactionFacts(verified)
        } catch {
            throw Problem.invalidProof(code: "malformed", detail: "the signed transaction is malformed: \(error)")
        }
    }

    /// What the app accepts of signed data, from its store settings.
    static func policy(_ bundleID: String, _ settings: StoreSettings) -> SignedDataPolicy {
        SignedDataPolicy(bundleId: bundleID, environments: settings.environments, acceptsXcode: settings.acceptXcode,
                         appAppleId: settings.appAppleId)
    }

    static func location(of submission: PurchaseSubmission) -> String {
        "/v1/apps/\(submission.bundleID)/purchases/submissions/\(submission.id.lowercaseText)"
    }

    /// A submission, waiting up to `wait` seconds for its outcome. A client key reads only its own.
    func getSubmission(_ input: Operations.GetSubmission.Input) async throws -> Operations.GetSubmission.Output {
        let (key, own) = try Self.submissionReader()
        let bundleID = input.path.bundleId
        let wait = input.query.wait ?? 0
        guard (0...Self.longestWait).contains(wait) else {
            throw CatalogError.validationFailed([FieldProblem(field: "wait", rule: "range",
                                                              message: "must be between 0 and \(Self.longestWait) seconds")])
        }
        guard mayLookUp(app: bundleID, for: key), let id = UUID(text: input.path.submissionId) else {
            throw CatalogError.notFound("no submission \(input.path.submissionId) in \(bundleID)")
        }
        let read = { () async throws -> PurchaseSubmission? in
            guard let submission = try await database.submissions.find(bundleID, id: id),
                  !own || submission.keyID == key.id
            else { return nil }
            return submission
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(wait))
        // Waiting for the outcome takes nothing of this process: background work need not give way to it.
        let waited = try await metrics.requestsInFlight.idle {
            try await signals.wait(for: id, until: deadline, poll: Self.outcomePoll, isSettled: { $0.status.isFinal },
                                   read: read)
        }
        guard let submission = waited
        else { throw CatalogError.notFound("no submission \(input.path.submissionId) in \(bundleID)") }
        return .ok(.init(body: .json(.init(submission))))
    }

    /// Who reads submissions: every submission with `readPurchases`, its own only with `readOwnSubmissions`.
    static func submissionReader() throws -> (APIKey, own: Bool) {
        let key = try Access.authenticated()
        if key.role.may(.readPurchases) { return (key, false) }
        return (try Access.require(.readOwnSubmissions), true)
    }

    func listSubmissions(_ input: Operations.ListSubmissions.Input) async throws -> Operations.ListSubmissions.Output {
        let (key, own) = try Self.submissionReader()
        let query = input.query
        let limit = try PageCursor.limit(query.limit)
        var account: String?
        if let token = query.accountToken {
            guard let parsed = AccountToken(parsing: token) else {
                throw CatalogError.validationFailed([FieldProblem(field: "accountToken", rule: "pattern",
                                                                  message: "must be \(AccountToken.rule)")])
            }
            account = parsed.text
        }
        let after = try PageCursor.decode(query.cursor) { text -> SubmissionCursor? in
            let parts = text.split(separator: ":")
            guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(text: String(parts[1])) else {
                return nil
            }
            return SubmissionCursor(createdMicroseconds: micros, id: id)
        }
        let app = try await visibleApp(input.path.bundleId, for: key)
        let filter = SubmissionFilter(status: query.status.map { EnumMapping.convert($0) }, pendingOnly: query.pending ?? false,
                                      accountToken: account, keyID: own ? key.id : nil)
        let fetched = try await database.submissions.list(app.bundleID, filter: filter, after: after, limit: limit + 1)
        let (page, next) = PageCursor.page(fetched, limit: limit) { "\($0.1.createdMicroseconds):\($0.1.id.uuidString)" }
        return .ok(.init(body: .json(.init(items: page.map { .init($0.0) }, nextCursor: next))))
    }

    /// Makes a retrying or failed receipt submission due now, and wakes this process's worker.
    func retrySubmission(_ input: Operations.RetrySubmission.Input) async throws -> Operations.RetrySubmission.Output {
        let key = try Access.require(.retryPurchases)
        let bundleID = input.path.bundleId
        guard mayLookUp(app: bundleID, for: key), let id = UUID(text: input.path.submissionId),
              let retry = try await database.submissions.retryNow(bundleID, id: id)
        else { throw CatalogError.notFound("no submission \(input.path.submissionId) in \(bundleID)") }
        switch retry {
        case .due(let submission):
            signals.receiptsQueued()
            signals.outcomeRecorded(id)
            return .ok(.init(body: .json(.init(submission))))
        case .notRetryable(let status):
            throw CatalogError.conflict("a \(status.rawValue) submission cannot be retried: only retrying and failed ones can")
        }
    }
}

/// An account of an app, for the per-account rate limit.
struct AccountKey: Hashable, Sendable {
    let bundleID: String
    let token: String
}

extension Problem {
    /// Signed data refused: `422 invalid-proof`, with the stable name of the rule it broke.
    static func invalidProof(code: String, detail: String) -> Problem {
        var problem = Problem("invalid-proof", .unprocessableContent, "The signed data is refused", detail: detail)
        problem.reason = code
        return problem
    }
}
