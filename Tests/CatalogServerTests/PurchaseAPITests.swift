import AppStoreStandIn
import CatalogAPI
import CatalogServer
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PurchaseCore
import Testing

/// `POST …/purchases` and the submissions' reads, on real PostgreSQL, with signed data from the stand-in's
/// signer.
@Suite("Purchases API")
struct PurchaseAPITests {
    static let suite = "purchases_api"

    @Test("a signed transaction is verified and recorded at once; the same proof again is the same submission")
    func signedTransaction() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.signed")
            let account = PurchaseWorld.account()
            let transaction = world.transaction("coins", id: "2000000000000101")
            let jws = try world.signed(transaction)
            let first = try expect(try await world.submit(api, jws, account: account), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(first.status == .verified && first.kind == .signedTransaction && first.environment == .sandbox)
            #expect(first.accountToken == account && first.attempts == 1 && first.finishedAt != nil)
            let recorded = try #require(first.transactions.first)
            #expect(recorded.transactionId == "2000000000000101" && recorded.credited == true)
            #expect(recorded.alreadyRecorded == false && recorded.catalogMismatch == false)
            #expect(recorded.price?.amount == "0.99" && recorded.price?.currency == "USD" && recorded.quantity == 1)
            #expect(recorded.appleType == "Consumable" && recorded.catalogType == .consumable)
            let again = try expect(try await world.submit(api, jws, account: account.uppercased()), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(again.id == first.id && again.transactions.count == 1)
            // The client reads its own submission; the ledger holds one row; the chain verifies with the sale in it.
            let read = try expect(try await api.send(.get, "/v1/apps/\(world.app)/purchases/submissions/\(first.id)",
                                                     key: world.client), .ok,
                                  as: Components.Schemas.PurchaseSubmission.self)
            #expect(read.id == first.id && read.transactions.first?.credited == true)
            #expect(try await world.ledger(api).map(\.transactionId) == ["2000000000000101"])
            let verification = try expect(try await api.send(.get, "/v1/history/verify?app=\(world.app)",
                                                             key: world.keys.auditor), .ok,
                                          as: Components.Schemas.HistoryVerification.self)
            #expect(verification.verified)
            let events = try expect(try await api.send(.get, "/v1/history?app=\(world.app)&kind=transaction_recorded",
                                                       key: world.keys.auditor), .ok,
                                    as: Components.Schemas.HistoryPage.self).items
            #expect(events.count == 1 && events.first?.productId == "coins" && events.first?.actor.role == .client)
            // Every submission answered: none waits for its batch.
            let metrics = String(buffer: try await api.send(.get, "/metrics").body)
            #expect(metrics.contains("db_purchase_submissions_pending 0"))
        }
    }

    @Test("100 concurrent submissions of one proof: one submission, one ledger row")
    func manyAtOnce() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.thousand")
            let jws = try world.signed(world.transaction())
            let account = PurchaseWorld.account()
            // The first one alone: the key and the app's settings are then in memory, as they are for a server
            // that has been serving (hundreds of first requests at once would queue for the database for them).
            // A thousand at once, against two real server processes: ProcessTests' SignedIntakeProcessTests.
            let first = try expect(try await world.submit(api, jws, account: account), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try expect(try await world.submit(api, jws, account: account), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self).id
                    }
                }
                var ids = Set<String>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids == [first.id])
            #expect(try await world.ledger(api).count == 1)
            let submissions = try expect(try await api.send(.get, "/v1/apps/\(world.app)/purchases/submissions",
                                                            key: world.keys.auditor), .ok,
                                         as: Components.Schemas.PurchaseSubmissionPage.self)
            #expect(submissions.items.count == 1)
        }
    }

    @Test("a transaction submitted by two accounts is credited once, to the first; the second learns it is not")
    func twoAccounts() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.shared")
            let jws = try world.signed(world.transaction())
            let (alice, bob) = (PurchaseWorld.account(), PurchaseWorld.account())
            let first = try expect(try await world.submit(api, jws, account: alice), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            let second = try expect(try await world.submit(api, jws, account: bob), .ok,
                                    as: Components.Schemas.PurchaseSubmission.self)
            #expect(first.id != second.id)
            #expect(first.transactions.first?.credited == true)
            #expect(second.transactions.first?.credited == false && second.transactions.first?.alreadyRecorded == true)
            let ledger = try await world.ledger(api)
            #expect(ledger.count == 1 && ledger.first?.accountToken == alice)
            // Apple's appAccountToken decides whom a transaction is credited to, whoever submits it first.
            let carol = UUID()
            let tokened = try world.signed(world.transaction(account: carol))
            let byBob = try expect(try await world.submit(api, tokened, account: bob), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(byBob.transactions.first?.credited == false)
            #expect(byBob.transactions.first?.accountToken == carol.uuidString.lowercased())
        }
    }

    @Test("catalogMismatch: a product the catalog lacks, or of another type, is recorded and flagged")
    func catalogMismatch() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.mismatch")
            for (product, type, mismatch) in [("coins", AppStoreProductType.consumable, false),
                                              ("gems", .consumable, true), ("premium", .consumable, true),
                                              ("premium", .nonConsumable, false)] {
                let answer = try expect(try await world.submit(api, try world.signed(world.transaction(product, type: type))),
                                        .ok, as: Components.Schemas.PurchaseSubmission.self)
                #expect(answer.transactions.first?.catalogMismatch == mismatch, "\(product) as \(type)")
            }
            #expect(try await world.ledger(api).count == 4)
        }
    }

    @Test("refused signed data: 422 invalid-proof with the rule it broke, and nothing recorded")
    func forgedCorpus() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.forged")
            let transaction = world.transaction()
            let genuine = try world.signed(transaction)
            let parts = genuine.split(separator: ".").map(String.init)
            let signer = PurchaseWorld.signer
            let chain = PurchaseWorld.chain
            let stranger = try TestChain.generate()
            var otherApp = transaction
            otherApp.bundleId = "com.purchase.other"
            var production = transaction
            production.environment = AppStoreEnvironment.production.rawValue
            var xcode = transaction
            xcode.environment = AppStoreEnvironment.xcode.rawValue
            var tampered = transaction
            tampered.price = 1
            let expired = try chain.issuingLeaf(validity: Date(timeIntervalSince1970: 1_577_836_800)..<Date(timeIntervalSince1970: 1_600_000_000))
            let noLeafOID = try chain.issuingLeaf(appleOID: false)
            let noIntermediateOID = try chain.issuingIntermediate(appleOID: false)
            func header(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }
            let corpus: [(String, String, String)] = [
                ("altered signature", parts[0] + "." + parts[1] + "." + (parts[2].hasPrefix("A") ? "B" : "A")
                    + parts[2].dropFirst(), "signature"),
                ("altered payload", parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(tampered)) + "." + parts[2],
                 "signature"),
                ("two certificates", try signer.sign(payload: transaction, x5c: Array(chain.x5c.prefix(2)), key: chain.leafKey),
                 "chain-length"),
                ("four certificates", try signer.sign(payload: transaction, x5c: chain.x5c + [chain.x5c[2]], key: chain.leafKey),
                 "chain-length"),
                ("an untrusted root", try StandInSigner(chain: stranger).sign(transaction), "untrusted-chain"),
                ("a leaf without Apple's OID", try StandInSigner(chain: noLeafOID).sign(transaction), "missing-apple-oid-leaf"),
                ("an intermediate without Apple's OID", try StandInSigner(chain: noIntermediateOID).sign(transaction),
                 "missing-apple-oid-intermediate"),
                ("an expired leaf", try StandInSigner(chain: expired).sign(transaction), "certificate-not-valid"),
                ("alg none", header(#"{"alg":"none"}"#) + "." + parts[1] + ".", "algorithm"),
                ("HS256 with the public key", header(#"{"alg":"HS256","x5c":[]}"#) + "." + parts[1] + "." + parts[2], "algorithm"),
                ("another app's", try signer.sign(otherApp), "bundle-mismatch"),
                ("Xcode, not accepted", try signer.sign(xcode), "environment-not-accepted"),
                ("malformed", "not.a.jws!", "malformed"),
            ]
            // Production is not accepted either, once the app says so.
            _ = try expect(try await api.send(.put, "/v1/apps/\(world.app)/store-settings", key: world.keys.admin,
                                              json: ["environments": ["Sandbox"]]), .ok,
                           as: Components.Schemas.StoreSettings.self)
            for (name, jws, reason) in corpus + [("Production, not accepted", try signer.sign(production),
                                                 "environment-not-accepted")] {
                let refusal = try problem(try await world.submit(api, jws, account: PurchaseWorld.account()),
                                          .unprocessableContent, "invalid-proof")
                #expect(refusal.reason == reason, "\(name): \(refusal.reason ?? "-") \(refusal.detail ?? "")")
            }
            let oversized = try problem(try await world.submit(api, String(repeating: "a", count: 70_000)),
                                        .unprocessableContent, "invalid-proof")
            #expect(oversized.reason == "too-large")
            #expect(try await world.ledger(api).isEmpty)
            let submissions = try expect(try await api.send(.get, "/v1/apps/\(world.app)/purchases/submissions",
                                                            key: world.keys.auditor), .ok,
                                         as: Components.Schemas.PurchaseSubmissionPage.self)
            #expect(submissions.items.isEmpty)
            // The genuine one passes.
            _ = try expect(try await world.submit(api, genuine), .ok, as: Components.Schemas.PurchaseSubmission.self)
        }
    }

    @Test("bodies: exactly one proof, an account token of one of two layouts, 256 KiB at most")
    func bodies() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.bodies")
            let path = "/v1/apps/\(world.app)/purchases"
            for (body, field) in [(#"{}"#, "signedTransaction"), (#"{"signedTransaction":"a.b.c","receipt":"TUlJ"}"#, "receipt"),
                                  (#"{"receipt":"TUlJ","accountToken":"alice@example.com"}"#, "accountToken"),
                                  (#"{"receipt":"not base64!"}"#, "receipt")] {
                let refusal = try problem(try await api.send(.post, path, key: world.client, body: body),
                                          .unprocessableContent, "validation-failed")
                #expect(refusal.errors?.map(\.field) == [field], "\(body)")
            }
            let large = String(repeating: "A", count: 200_000)
            let accepted = try await world.receipt(api, large, account: PurchaseWorld.account())
            #expect(accepted.status == .accepted)
            // One character beyond the document's maxLength still fits the route's limit: refused for what it is.
            let tooLong = try problem(try await world.receipt(api, String(repeating: "A", count: 261_121)),
                                      .unprocessableContent, "validation-failed")
            #expect(tooLong.errors?.map(\.rule) == ["maxLength"])
            _ = try problem(try await world.receipt(api, String(repeating: "A", count: 270_000)), .contentTooLarge,
                            "payload-too-large")
            // The seed's applicationUsername layout is a token too.
            let username = (0..<8).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined(separator: "-")
            #expect(try await world.receipt(api, "TUlJVkE=", account: username).status == .accepted)
        }
    }

    @Test("receipts: 202 with Location, the same receipt again the same submission, ?wait answers with the outcome")
    func receipts() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.receipts")
            let account = PurchaseWorld.account()
            let response = try await world.receipt(api, "TUlJVkEtcmVjZWlwdA==", account: account)
            let queued = try expect(response, .accepted, as: Components.Schemas.PurchaseSubmission.self)
            #expect(queued.status == .queued && queued.kind == .receipt && queued.nextAttemptAt != nil)
            let location = try #require(response.headers[.location])
            #expect(location == "/v1/apps/\(world.app)/purchases/submissions/\(queued.id)")
            let again = try expect(try await world.receipt(api, "TUlJVkEt\ncmVjZWlwdA==", account: account), .accepted,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(again.id == queued.id)
            // Still pending after a wait of 1 s: answered then, as it stands.
            let clock = ContinuousClock()
            let start = clock.now
            let pending = try expect(try await api.send(.get, location + "?wait=1", key: world.client), .ok,
                                     as: Components.Schemas.PurchaseSubmission.self)
            #expect(pending.status == .queued && clock.now - start >= .milliseconds(900))
            _ = try problem(try await api.send(.get, location + "?wait=21", key: world.client), .unprocessableContent,
                            "validation-failed")
            // A worker (here, another process's, seen by polling) records the outcome while a read waits.
            let id = try #require(UUID(uuidString: queued.id))
            let waitStart = clock.now
            async let waited = api.send(.get, location + "?wait=20", key: world.client)
            try await Task.sleep(for: .milliseconds(300))
            try await TestDatabase.withDatabase(fixture.url) { database in
                try await TestDatabase.execute("""
                    UPDATE purchase_submissions SET status = 'verifying', attempts = 1,
                        lease_expires_at = now() + interval '1 minute' WHERE id = '\(id)'
                    """, in: fixture.url)
                let outcome = SubmissionQueue.Outcome(
                    submissionID: id, attempts: 1, status: .verified, environment: .sandbox, appleStatus: 0,
                    transactions: [TransactionFacts(environment: .sandbox, transactionId: "1000000000000042",
                                                    productId: "coins", purchaseDate: Date())])
                #expect(try await database.queue.record(outcome))
            }
            let recorded = clock.now
            let verified = try expect(try await waited, .ok, as: Components.Schemas.PurchaseSubmission.self)
            let answered = clock.now
            #expect(verified.status == .verified && verified.transactions.first?.transactionId == "1000000000000042")
            // Answered by the poll that found it (every second), not at the end of the wait: the wait cannot end
            // before 20 s from the request, and the poll answers within seconds of the recording. Both bounds are
            // taken from this side's clock, so a machine that pauses the set-up for seconds moves them together.
            #expect(answered - waitStart < .seconds(20))
            #expect(answered - recorded < .seconds(5))
            // Sent again once final: 200 with the outcome, no new submission.
            let final = try expect(try await world.receipt(api, "TUlJVkEtcmVjZWlwdA==", account: account), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(final.id == queued.id && final.status == .verified)
        }
    }

    @Test("a client sees only its own submissions; other roles see the app's, filtered and paged")
    func listings() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.lists")
            let otherClient = try await fixture.key(.client, apps: [world.app])
            let account = PurchaseWorld.account()
            var mine: [String] = []
            for index in 0..<5 {
                let answer = try await world.receipt(api, "UkVDRUlQVA\(index)", account: index < 3 ? account : nil)
                mine.append(try expect(answer, .accepted, as: Components.Schemas.PurchaseSubmission.self).id)
            }
            let theirs = try expect(try await world.receipt(api, "T1RIRVI=", key: otherClient), .accepted,
                                    as: Components.Schemas.PurchaseSubmission.self)
            func list(_ query: String, key: String) async throws -> [String] {
                var ids: [String] = []
                var cursor: String?
                repeat {
                    let page = try expect(try await api.send(.get, "/v1/apps/\(world.app)/purchases/submissions?limit=2\(query)"
                                                             + (cursor.map { "&cursor=\($0)" } ?? ""), key: key), .ok,
                                          as: Components.Schemas.PurchaseSubmissionPage.self)
                    ids += page.items.map(\.id)
                    cursor = page.nextCursor
                } while cursor != nil
                return ids
            }
            #expect(try await list("", key: world.client) == mine.reversed())
            #expect(try await list("", key: world.keys.developer) == [theirs.id] + mine.reversed())
            #expect(try await list("&accountToken=\(account)", key: world.keys.auditor) == mine.prefix(3).reversed())
            #expect(try await list("&pending=true", key: world.keys.auditor).count == 6)
            #expect(try await list("&status=verified", key: world.keys.auditor).isEmpty)
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/purchases/submissions/\(theirs.id)",
                                               key: world.client), .notFound, "not-found")
        }
    }

    @Test("retry: a failed or retrying receipt is due now; any other is 409")
    func retry() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.retry")
            let queued = try expect(try await world.receipt(api, "RkFJTEVE"), .accepted,
                                    as: Components.Schemas.PurchaseSubmission.self)
            let path = "/v1/apps/\(world.app)/purchases/submissions/\(queued.id)/retry"
            _ = try problem(try await api.send(.post, path, key: world.keys.developer), .conflict, "conflict")
            try await TestDatabase.execute("""
                UPDATE purchase_submissions SET status = 'failed', finished_at = now(), attempts = 3,
                    problems = '["The App Store did not answer in time."]' WHERE id = '\(queued.id)'
                """, in: fixture.url)
            let due = try expect(try await api.send(.post, path, key: world.keys.developer), .ok,
                                 as: Components.Schemas.PurchaseSubmission.self)
            #expect(due.status == .retrying && due.attempts == 3 && due.finishedAt == nil && due.nextAttemptAt != nil)
            let signed = try expect(try await world.submit(api, try world.signed(world.transaction())), .ok,
                                    as: Components.Schemas.PurchaseSubmission.self)
            _ = try problem(try await api.send(.post, "/v1/apps/\(world.app)/purchases/submissions/\(signed.id)/retry",
                                               key: world.keys.admin), .conflict, "conflict")
            _ = try problem(try await api.send(.post, path, key: world.keys.auditor), .forbidden, "forbidden")
        }
    }

    @Test("submissions per account token are rate-limited: 429 with Retry-After")
    func accountRateLimit() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        var limits = TestArguments(databaseURL: fixture.url, migrationDatabaseURL: nil).limits
        limits.submissionsPerSecondPerAccount = 0.001
        limits.burstPerAccount = 3
        try await fixture.run(limits: limits, roots: PurchaseWorld.roots) { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.purchase.limited")
            let account = PurchaseWorld.account()
            for index in 0..<3 {
                #expect(try await world.receipt(api, "TElNSVQ\(index)", account: account).status == .accepted)
            }
            let limited = try await world.receipt(api, "TElNSVQz", account: account)
            _ = try problem(limited, .tooManyRequests, "rate-limited")
            #expect(limited.headers[.retryAfter] != nil)
            // Another account is not held back by this one, nor a submission without an account.
            #expect(try await world.receipt(api, "TElNSVQ0", account: PurchaseWorld.account()).status == .accepted)
            #expect(try await world.receipt(api, "TElNSVQ1").status == .accepted)
        }
    }
}
