import AppStoreStandIn
import CatalogAPI
import CatalogAPIConventions
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CatalogServer

/// The intake's fast path (``PurchaseIntakeMiddleware``): what it reads itself, what it leaves to the generated
/// layer, and that its answers are the generated layer's, byte for byte.
@Suite("The purchase intake's fast path")
struct PurchaseIntakeFastPathTests {
    static let suite = "purchase_intake_fast_path"

    @Test("the plain form is read: some or all of the three members, each once, blanks anywhere", arguments: [
        (#"{"signedTransaction":"a.b.c"}"#, PurchaseSubmissionBody(signedTransaction: "a.b.c")),
        ("{ \"accountToken\" : \"t\" ,\n\t\"receipt\":\"TUlJ+/=\" }\r\n",
         PurchaseSubmissionBody(receipt: "TUlJ+/=", accountToken: "t")),
        (#"{"receipt":"r","signedTransaction":"s","accountToken":"é"}"#,
         PurchaseSubmissionBody(signedTransaction: "s", receipt: "r", accountToken: "é")),
        (#"{"signedTransaction":""}"#, PurchaseSubmissionBody(signedTransaction: "")),
        ("{}", PurchaseSubmissionBody()),
    ])
    func plainBodies(body: String, expected: PurchaseSubmissionBody) {
        #expect(PurchaseSubmissionBody(plain: ByteBuffer(string: body)) == expected)
    }

    @Test("anything else is left to the generated layer", arguments: [
        #"{"signedTransaction":"a\/b"}"#, #"{"signed\u0054ransaction":"a"}"#, #"{"signedTransaction":"a\"b"}"#,
        #"{"signedTransaction":"a","signedTransaction":"b"}"#, #"{"other":"x"}"#, #"{"signedTransaction":1}"#,
        #"{"signedTransaction":null}"#, #"{"signedTransaction":["a"]}"#, #"{"signedTransaction":"a"} x"#,
        #"{"signedTransaction":"a",}"#, #"{"signedTransaction":"a""#, #"{"signedTransaction""a"}"#, "[]", "",
        "{\"signedTransaction\":\"a\u{01}b\"}", "{\"signedTransaction\":\"a\tb\"}", #"{,}"#, #"{"receipt":"a"}}"#,
    ])
    func otherBodies(body: String) {
        #expect(PurchaseSubmissionBody(plain: ByteBuffer(string: body)) == nil)
    }

    @Test("a submission's JSON is JSONEncoder's with the API's settings, byte for byte, every member present or absent")
    func answerBytes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339DateTranscoder().encode(date))
        }
        for submission in Self.submissions {
            let expected = String(decoding: try encoder.encode(submission), as: UTF8.self)
            #expect(String(decoding: PurchaseSubmissionJSON.utf8(submission), as: UTF8.self) == expected)
        }
    }

    @Test("the full submission above sets every member the document has, so that a new one is written or fails")
    func everyMemberSet() throws {
        let full = try #require(Self.submissions.first)
        let transaction = try #require(full.transactions.first)
        let source = try #require(transaction.sources?.first)
        for value in [full, transaction, source] as [Any] {
            let unset = Mirror(reflecting: value).children.filter { child in
                let member = Mirror(reflecting: child.value)
                return member.displayStyle == .optional && member.children.isEmpty
            }
            #expect(unset.map(\.label) == [], "\(type(of: value))")
        }
    }

    /// A full submission with awkward strings, and a bare one.
    static let submissions: [Components.Schemas.PurchaseSubmission] = {
        let instant = Date(timeIntervalSince1970: 1_764_000_000.125)
        let awkward = "q\"b\\s/c\u{01}\u{1F}\n\r\t\u{08}\u{0C}é\u{2028}🙂\u{7F}"
        let full = Components.Schemas.LedgerTransaction(
            transactionId: "2000000000000101", environment: .sandbox, originalTransactionId: "2000000000000100",
            productId: awkward, appleType: "Auto-Renewable Subscription", catalogType: .autoRenewableSubscription,
            catalogMismatch: true, quantity: 3, purchaseDate: instant, originalPurchaseDate: instant.addingTimeInterval(-1),
            expiresDate: instant.addingTimeInterval(86_400.001), revocationDate: instant.addingTimeInterval(2),
            revocationReason: 0, price: .init(currency: "EUR", amount: "-0.99"), storefront: "FRA",
            appTransactionId: "704", inAppOwnershipType: "PURCHASED", webOrderLineItemId: "1", transactionReason: "RENEWAL",
            accountToken: "d5e9f7a0-1c9b-4d77-9f57-5a1f3c9b1e20", credited: false, alreadyRecorded: true,
            sources: [.init(kind: .notification, id: "8a2b", accountToken: "x", recorded: true, at: instant),
                      .init(kind: .submission, id: "9c3d", recorded: false, at: instant)],
            version: 7, createdAt: instant, updatedAt: instant.addingTimeInterval(0.999))
        let bare = Components.Schemas.LedgerTransaction(
            transactionId: "1", environment: .production, originalTransactionId: "1", productId: "coins",
            catalogMismatch: false, quantity: 1, purchaseDate: Date(timeIntervalSince1970: 0), version: 1,
            createdAt: Date(timeIntervalSince1970: -1.5), updatedAt: Date(timeIntervalSince1970: 1e10))
        return [
            .init(id: "6f1c0b58-2d1e-4b2a-9a55-0f0e4c1d2b3a", kind: .receipt, status: .retrying, accountToken: awkward,
                  environment: .xcode, attempts: 2, nextAttemptAt: instant, appleStatus: 21005, transactions: [full, bare],
                  problems: [awkward, "the App Store was unavailable"], createdAt: instant, updatedAt: instant,
                  finishedAt: instant),
            .init(id: "b", kind: .signedTransaction, status: .verified, attempts: 0, transactions: [], problems: [],
                  createdAt: instant, updatedAt: instant),
        ]
    }()

    @Test("through the fast path and through the generated layer, the same answers", .timeLimit(.minutes(6)))
    func sameAnswers() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.intake.fast")
            let jws = try world.signed(world.transaction("coins"))
            let body = #"{"signedTransaction":"\#(jws)"}"#
            let path = "/v1/apps/\(world.app)/purchases"
            // An Accept the fast path does not weigh sends the request to the generated layer.
            let generated: HTTPFields = [.accept: "application/json, */*;q=0.5"]
            let first = try await api.send(.post, path, key: world.client, body: body)
            #expect(first.status == .ok)
            let again = try await api.send(.post, path, key: world.client, body: body)
            let viaGenerated = try await api.send(.post, path, key: world.client, body: body, headers: generated)
            #expect(again.status == .ok && viaGenerated.status == .ok)
            #expect(String(buffer: again.body) == String(buffer: viaGenerated.body))
            #expect(again.headers[.contentType] == viaGenerated.headers[.contentType])
            #expect(again.headers[.contentType] == "application/json; charset=utf-8")
            #expect(again.headers[.contentLength] == viaGenerated.headers[.contentLength])

            // A receipt: 202 with its Location, both ways.
            for (receipt, headers) in [("TUlJRkFrMQ==", HTTPFields()), ("TUlJRkFrMg==", generated)] {
                let queued = try await api.send(.post, path, key: world.client, body: #"{"receipt":"\#(receipt)"}"#,
                                                headers: headers)
                let submission = try expect(queued, .accepted, as: Components.Schemas.PurchaseSubmission.self)
                #expect(queued.headers[.location] == "\(path)/submissions/\(submission.id)")
                #expect(queued.headers[.contentType] == "application/json; charset=utf-8")
            }

            // Refusals are the handler's, both ways: a forged signature, an account token of neither layout.
            let forged = String(jws.dropLast(4)) + (jws.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            for headers in [HTTPFields(), generated] {
                let refused = try problem(try await api.send(.post, path, key: world.client,
                                                             body: #"{"signedTransaction":"\#(forged)"}"#,
                                                             headers: headers),
                                          .unprocessableContent, "invalid-proof")
                #expect(refused.detail?.isEmpty == false)
                let badToken = try problem(try await api.send(.post, path, key: world.client,
                                                              body: #"{"signedTransaction":"x","accountToken":"x"}"#,
                                                              headers: headers),
                                           .unprocessableContent, "validation-failed")
                #expect(badToken.errors?.map(\.field) == ["accountToken"])
            }
            #expect(try await world.ledger(api).count == 1)
        }
    }
}
