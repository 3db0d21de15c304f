import AppStoreStandIn
import CatalogCore
import Crypto
import Foundation
import PurchaseCore
import Testing

/// Valid signed data verifies and decodes; the policy's environments, bundle and Xcode setting decide.
@Suite("Signed data verification")
struct SignedDataVerifierTests {
    typealias F = SignedDataFixtures

    @Test("a signed transaction verifies and decodes with Apple's fields")
    func transaction() async throws {
        let bundle = "com.example.signed.transaction"
        let sent = F.transaction(bundleId: bundle, type: .consumable)
        let verified = try await F.verifier().verifyTransaction(
            try F.signer.sign(sent), for: SignedDataPolicy(bundleId: bundle))
        #expect(verified.payload == sent)
        #expect(verified.environment == .sandbox)
        #expect(verified.signedDate == F.now)
        #expect(verified.isChainVerified)
        #expect(verified.payload.price == 990)
        #expect(verified.payload.type?.purchaseType == .consumable)
        #expect(verified.payload.appAccountToken == UUID(uuidString: "6f6d2c1e-1f0b-4c55-9d59-6b656e636801"))
    }

    @Test("each product type and both chain-verified environments are accepted by default", arguments: [
        (AppStoreProductType.consumable, AppStoreEnvironment.production),
        (.nonConsumable, .sandbox), (.autoRenewableSubscription, .production), (.nonRenewingSubscription, .sandbox),
    ])
    func defaults(type: AppStoreProductType, environment: AppStoreEnvironment) async throws {
        let bundle = "com.example.signed.defaults.\(environment.rawValue.lowercased())"
        let sent = F.transaction(bundleId: bundle, environment: environment, type: type)
        let verified = try await F.verifier().verifyTransaction(
            try F.signer.sign(sent), for: SignedDataPolicy(bundleId: bundle))
        #expect(verified.environment == environment)
        #expect(verified.payload.type == type)
        #expect((verified.payload.expiresDate != nil) == (type == .autoRenewableSubscription))
    }

    @Test("an app that accepts Production only refuses Sandbox")
    func productionOnly() async throws {
        let bundle = "com.example.signed.production-only"
        let jws = try F.signer.sign(F.transaction(bundleId: bundle, environment: .sandbox))
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("Sandbox")) {
            _ = try await F.verifier().verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle, environments: [.production]))
        }
    }

    @Test("an environment Apple does not have is refused, however well signed")
    func unknownEnvironment() async throws {
        let bundle = "com.example.signed.unknown-environment"
        var transaction = F.transaction(bundleId: bundle)
        transaction.environment = "Staging"
        let jws = try F.signer.sign(transaction)
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("Staging")) {
            _ = try await F.verifier().verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        }
        transaction.environment = nil
        let unnamed = try F.signer.sign(transaction)
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("missing")) {
            _ = try await F.verifier().verifyTransaction(unnamed, for: SignedDataPolicy(bundleId: bundle))
        }
    }

    @Test("a transaction signed while an old leaf was valid is accepted after the leaf expired, as Apple's library does")
    func oldLeaf() async throws {
        let bundle = "com.example.signed.old-leaf"
        let old = try F.chain.issuingLeaf(validity: F.date(year: 2020, month: 1)..<F.date(year: 2021, month: 1))
        let signedDate = AppStoreDate(F.date(year: 2020, month: 6))
        let jws = try StandInSigner(chain: old).sign(F.transaction(bundleId: bundle, signedDate: signedDate))
        let verified = try await F.verifier().verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        #expect(verified.signedDate == signedDate)
    }

    @Test("a signedDate outside the root's validity is refused as such, though leaf and intermediate were valid")
    func rootNotValid() async throws {
        let bundle = "com.example.signed.root-not-valid"
        let chain = try TestChain.generate(
            validity: F.date(year: 2020, month: 1)..<F.date(year: 2040, month: 1),
            rootValidity: F.date(year: 2020, month: 1)..<F.date(year: 2025, month: 1))
        let verifier = SignedDataVerifier(roots: chain.trustedRoots)
        let jws = try StandInSigner(chain: chain).sign(F.transaction(bundleId: bundle))
        await #expect(throws: SignedDataRefusal.certificateNotValidAt(F.now)) {
            _ = try await verifier.verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        }
        let early = AppStoreDate(F.date(year: 2024))
        let earlier = try StandInSigner(chain: chain).sign(F.transaction(bundleId: bundle, signedDate: early))
        #expect(try await verifier.verifyTransaction(earlier, for: SignedDataPolicy(bundleId: bundle)).signedDate == early)
    }

    @Test("renewal information verifies and decodes; its environment is checked")
    func renewalInfo() async throws {
        var renewal = AppStoreRenewalInfo()
        renewal.originalTransactionId = "2000000000000001"
        renewal.productId = "com.example.signed.renewal.monthly"
        renewal.autoRenewProductId = "com.example.signed.renewal.yearly"
        renewal.autoRenewStatus = 1
        renewal.environment = "Sandbox"
        renewal.signedDate = F.now
        renewal.renewalDate = AppStoreDate(millisecondsSince1970: F.now.millisecondsSince1970 + 86_400_000)
        renewal.renewalPrice = 4990
        renewal.currency = "EUR"
        let jws = try F.signer.sign(renewal)
        let policy = SignedDataPolicy(bundleId: "com.example.signed.renewal")
        let verified = try await F.verifier().verifyRenewalInfo(jws, for: policy)
        #expect(verified.payload == renewal)
        #expect(verified.environment == .sandbox)
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("Sandbox")) {
            _ = try await F.verifier().verifyRenewalInfo(
                jws, for: SignedDataPolicy(bundleId: "com.example.signed.renewal", environments: [.production]))
        }
    }

    @Test("a notification verifies with the transaction and renewal information it carries")
    func notification() async throws {
        let bundle = "com.example.signed.notification"
        let transaction = F.transaction(bundleId: bundle, environment: .production, type: .autoRenewableSubscription)
        let sent = try F.signer.notification(
            type: .didRenew, about: transaction, appAppleId: 1_234_567_890, signedDate: F.now)
        let verified = try await F.verifier().verifyNotification(
            try F.signer.sign(sent), for: SignedDataPolicy(bundleId: bundle, appAppleId: 1_234_567_890))
        #expect(verified.notification.payload == sent)
        #expect(verified.notification.payload.notificationType == .didRenew)
        #expect(verified.notification.environment == .production)
        #expect(verified.transaction?.payload == transaction)
        #expect(verified.renewalInfo?.payload.autoRenewStatus == 1)
        #expect(verified.renewalInfo?.payload.renewalDate == transaction.expiresDate)
    }

    @Test("a refund notification carries the revocation; a notification without a transaction has none")
    func refundAndTest() async throws {
        let bundle = "com.example.signed.refund"
        var transaction = F.transaction(bundleId: bundle)
        transaction.revocationDate = F.now
        transaction.revocationReason = .appIssue
        let refund = try F.signer.notification(type: .refund, about: transaction, signedDate: F.now)
        let verified = try await F.verifier().verifyNotification(
            try F.signer.sign(refund), for: SignedDataPolicy(bundleId: bundle))
        #expect(verified.transaction?.payload.revocationReason == .appIssue)
        #expect(verified.renewalInfo == nil)

        var test = AppStoreNotification()
        test.notificationType = .test
        test.notificationUUID = UUID().uuidString.lowercased()
        test.signedDate = F.now
        test.data = NotificationData()
        test.data?.bundleId = bundle
        test.data?.environment = "Sandbox"
        let verifiedTest = try await F.verifier().verifyNotification(
            try F.signer.sign(test), for: SignedDataPolicy(bundleId: bundle))
        #expect(verifiedTest.transaction == nil)
        #expect(verifiedTest.notification.payload.notificationType == .test)
    }

    @Test("a notification for another app, or naming none, is refused")
    func notificationBundle() async throws {
        let bundle = "com.example.signed.notification-bundle"
        let other = try F.signer.notification(
            type: .didRenew, about: F.transaction(bundleId: "com.example.other"), signedDate: F.now)
        await #expect(throws: SignedDataRefusal.bundleMismatch(expected: bundle, found: "com.example.other")) {
            _ = try await F.verifier().verifyNotification(try F.signer.sign(other), for: SignedDataPolicy(bundleId: bundle))
        }
        var empty = AppStoreNotification()
        empty.notificationType = .test
        empty.signedDate = F.now
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("missing")) {
            _ = try await F.verifier().verifyNotification(try F.signer.sign(empty), for: SignedDataPolicy(bundleId: bundle))
        }
    }

    @Test("a notification's nested transaction must verify for the same app and environment")
    func nestedRefusals() async throws {
        let bundle = "com.example.signed.nested"
        // Validly signed notification for this bundle around a transaction of another app.
        var notification = try F.signer.notification(
            type: .didRenew, about: F.transaction(bundleId: "com.example.other"), signedDate: F.now)
        notification.data?.bundleId = bundle
        await #expect(
            throws: SignedDataRefusal.nested(
                field: "signedTransactionInfo", refusal: .bundleMismatch(expected: bundle, found: "com.example.other"))
        ) {
            _ = try await F.verifier().verifyNotification(
                try F.signer.sign(notification), for: SignedDataPolicy(bundleId: bundle))
        }
        // A Sandbox transaction inside a Production notification.
        var mixed = try F.signer.notification(
            type: .didRenew, about: F.transaction(bundleId: bundle, environment: .sandbox), signedDate: F.now)
        mixed.data?.environment = "Production"
        await #expect(
            throws: SignedDataRefusal.nested(field: "signedTransactionInfo", refusal: .environmentNotAccepted("Sandbox"))
        ) {
            _ = try await F.verifier().verifyNotification(try F.signer.sign(mixed), for: SignedDataPolicy(bundleId: bundle))
        }
        // A forged transaction inside a genuine notification.
        let forged = try StandInSigner(chain: F.otherChain).sign(F.transaction(bundleId: bundle))
        let carrying = try F.signer.notification(
            type: .didRenew, about: F.transaction(bundleId: bundle), signedTransaction: forged, signedDate: F.now)
        await #expect(throws: SignedDataRefusal.nested(field: "signedTransactionInfo", refusal: .untrustedChain)) {
            _ = try await F.verifier().verifyNotification(
                try F.signer.sign(carrying), for: SignedDataPolicy(bundleId: bundle))
        }
    }

    @Test("a Production notification must name the app's App Store identifier when the app has one")
    func appAppleId() async throws {
        let bundle = "com.example.signed.app-apple-id"
        let notification = try F.signer.notification(
            type: .didRenew, about: F.transaction(bundleId: bundle, environment: .production), appAppleId: 42,
            signedDate: F.now)
        let jws = try F.signer.sign(notification)
        await #expect(throws: SignedDataRefusal.appAppleIdMismatch(expected: 7, found: 42)) {
            _ = try await F.verifier().verifyNotification(jws, for: SignedDataPolicy(bundleId: bundle, appAppleId: 7))
        }
        _ = try await F.verifier().verifyNotification(jws, for: SignedDataPolicy(bundleId: bundle))
    }
}

/// Local StoreKit testing: accepted only where the app allows it, checked as far as it can be, never Production.
@Suite("Xcode-signed data")
struct XcodeSignedDataTests {
    typealias F = SignedDataFixtures

    /// Xcode puts one self-signed certificate in `x5c` and signs with its key.
    static let xcode: TestChain = try! TestChain.generate()

    static func xcodeSigned(_ transaction: AppStoreTransaction, key: P256.Signing.PrivateKey = xcode.rootKey!) throws
        -> String
    {
        try StandInSigner(chain: xcode).sign(payload: transaction, x5c: [xcode.x5c[2]], key: key)
    }

    @Test("accepted when the app allows it, as Xcode, never counted with Production")
    func accepted() async throws {
        let bundle = "com.example.xcode.accepted"
        let sent = F.transaction(bundleId: bundle, environment: .xcode)
        let policy = SignedDataPolicy(bundleId: bundle, environments: [.production], acceptsXcode: true)
        let verified = try await F.verifier().verifyTransaction(try Self.xcodeSigned(sent), for: policy)
        #expect(verified.payload == sent)
        #expect(verified.environment == .xcode)
        #expect(!verified.isChainVerified)
    }

    @Test("refused when the app does not allow it, even in its environments")
    func refused() async throws {
        let bundle = "com.example.xcode.refused"
        let jws = try Self.xcodeSigned(F.transaction(bundleId: bundle, environment: .xcode))
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("Xcode")) {
            _ = try await F.verifier().verifyTransaction(
                jws, for: SignedDataPolicy(bundleId: bundle, environments: [.production, .sandbox, .xcode]))
        }
    }

    @Test("still ES256, signed by its certificate's key, for the app's bundle")
    func checked() async throws {
        let bundle = "com.example.xcode.checked"
        let policy = SignedDataPolicy(bundleId: bundle, acceptsXcode: true)
        let transaction = F.transaction(bundleId: bundle, environment: .xcode)
        await #expect(throws: SignedDataRefusal.signature) {
            _ = try await F.verifier().verifyTransaction(
                try Self.xcodeSigned(transaction, key: P256.Signing.PrivateKey()), for: policy)
        }
        await #expect(throws: SignedDataRefusal.bundleMismatch(expected: bundle, found: "com.example.other")) {
            _ = try await F.verifier().verifyTransaction(
                try Self.xcodeSigned(F.transaction(bundleId: "com.example.other", environment: .xcode)), for: policy)
        }
        let unchained = try StandInSigner(chain: Self.xcode).sign(payload: transaction, x5c: nil, key: Self.xcode.rootKey!)
        await #expect(throws: SignedDataRefusal.chainLength(0)) {
            _ = try await F.verifier().verifyTransaction(unchained, for: policy)
        }
        let none = F.compact(
            header: #"{"alg":"none","x5c":\#(F.x5cJSON([Self.xcode.x5c[2]]))}"#, payload: F.json(transaction),
            signature: Data())
        await #expect(throws: SignedDataRefusal.algorithm("none")) {
            _ = try await F.verifier().verifyTransaction(none, for: policy)
        }
    }

    @Test("LocalTesting is local test data too")
    func localTesting() async throws {
        let bundle = "com.example.xcode.local-testing"
        let jws = try Self.xcodeSigned(F.transaction(bundleId: bundle, environment: .localTesting))
        await #expect(throws: SignedDataRefusal.environmentNotAccepted("LocalTesting")) {
            _ = try await F.verifier().verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        }
        let verified = try await F.verifier().verifyTransaction(
            jws, for: SignedDataPolicy(bundleId: bundle, acceptsXcode: true))
        #expect(verified.environment == .localTesting)
    }
}
