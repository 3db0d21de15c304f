import CatalogCore
import Foundation
import PurchaseCore
import Testing

/// The payloads decode Apple's JSON: its names, milliseconds, milliunits, and values added later.
@Suite("App Store payloads")
struct AppStorePayloadTests {
    static let decoder = JSONDecoder()

    @Test("a transaction decodes Apple's fields, ignores unknown ones and keeps unknown values")
    func transaction() throws {
        let json = """
            {"transactionId":"2000000123456789","originalTransactionId":"2000000123456780",
             "webOrderLineItemId":"1000000123456789","bundleId":"com.example.app","productId":"com.example.app.pro",
             "subscriptionGroupIdentifier":"21000042","purchaseDate":1732500000123,"originalPurchaseDate":1732400000000,
             "expiresDate":1735092000123,"quantity":1,"type":"Auto-Renewable Subscription",
             "appAccountToken":"6f6d2c1e-1f0b-4c55-9d59-6b656e636801","inAppOwnershipType":"FAMILY_SHARED",
             "signedDate":1732500001000,"revocationReason":7,"revocationDate":1732600000000,"isUpgraded":false,
             "offerType":1,"offerIdentifier":"intro","environment":"Sandbox","storefront":"USA","storefrontId":"143441",
             "transactionReason":"SOMETHING_NEW","currency":"USD","price":4990,"offerDiscountType":"FREE_TRIAL",
             "appTransactionId":"704289570000000001","offerPeriod":"P1M","aFieldAppleAddsLater":{"x":[1,2]}}
            """
        let transaction = try Self.decoder.decode(AppStoreTransaction.self, from: Data(json.utf8))
        #expect(transaction.transactionId == "2000000123456789")
        #expect(transaction.purchaseDate == AppStoreDate(millisecondsSince1970: 1_732_500_000_123))
        #expect(transaction.purchaseDate?.date == Date(timeIntervalSince1970: 1_732_500_000.123))
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.type?.purchaseType == .autoRenewableSubscription)
        #expect(transaction.inAppOwnershipType == .familyShared)
        #expect(transaction.revocationReason == RevocationReason(rawValue: 7))
        #expect(transaction.transactionReason?.rawValue == "SOMETHING_NEW")
        #expect(transaction.price == 4990)
        #expect(transaction.appAccountToken == UUID(uuidString: "6F6D2C1E-1F0B-4C55-9D59-6B656E636801"))
        #expect(transaction.offerPeriod == "P1M")
        // Written back, the dates are the same integers.
        let again = try Self.decoder.decode(AppStoreTransaction.self, from: JSONEncoder().encode(transaction))
        #expect(again == transaction)
    }

    @Test("each of Apple's types maps to the catalog's; a type Apple adds later maps to none", arguments: [
        ("Consumable", "CONSUMABLE"), ("Non-Consumable", "NON_CONSUMABLE"),
        ("Auto-Renewable Subscription", "AUTO_RENEWABLE_SUBSCRIPTION"),
        ("Non-Renewing Subscription", "NON_RENEWING_SUBSCRIPTION"), ("Bundle", nil),
    ])
    func productTypes(apple: String, catalog: String?) throws {
        let transaction = try Self.decoder.decode(AppStoreTransaction.self, from: Data(#"{"type":"\#(apple)"}"#.utf8))
        #expect(transaction.type?.rawValue == apple)
        #expect(transaction.type?.purchaseType?.rawValue == catalog)
    }

    @Test("a field of the wrong kind is not Apple's payload", arguments: [
        #"{"price":"4990"}"#, #"{"purchaseDate":1732500000123.5}"#, #"{"purchaseDate":"2024-11-25"}"#,
        #"{"quantity":1e40}"#, #"{"appAccountToken":"not-a-uuid"}"#, #"[]"#,
    ])
    func wrongKinds(json: String) {
        #expect(throws: (any Error).self) { try Self.decoder.decode(AppStoreTransaction.self, from: Data(json.utf8)) }
    }

    /// Apple's fields, every one of them set, with a member it may add later.
    static let everyField = """
        {"transactionId":"2000000123456789","originalTransactionId":"2000000123456780",
         "webOrderLineItemId":"1000000123456789","bundleId":"com.example.app","productId":"com.example.app.pro",
         "subscriptionGroupIdentifier":"21000042","purchaseDate":1732500000123,"originalPurchaseDate":1732400000000,
         "expiresDate":1735092000123,"quantity":1,"type":"Auto-Renewable Subscription",
         "appAccountToken":"6f6d2c1e-1f0b-4c55-9d59-6b656e636801","inAppOwnershipType":"FAMILY_SHARED",
         "signedDate":1732500001000,"revocationReason":7,"revocationDate":-1,"isUpgraded":true,
         "offerType":1,"offerIdentifier":"intro","environment":"Sandbox","storefront":"USA","storefrontId":"143441",
         "transactionReason":"SOMETHING_NEW","currency":"USD","price":-4990,"offerDiscountType":"FREE_TRIAL",
         "appTransactionId":"704289570000000001","offerPeriod":"P1M","aFieldAppleAddsLater":{"x":[1,2]}}
        """

    @Test("read by name, a transaction is what JSONDecoder makes of it", arguments: [
        everyField, #"{}"#, #"{"transactionId":null,"quantity":null,"isUpgraded":false,"type":"Bundle"}"#,
        #"{"productId":"caf\u00e9 \"x\"","price":9223372036854775807,"appAccountToken":"6F6D2C1E-1F0B-4C55-9D59-6B656E636801"}"#,
    ])
    func readByName(json: String) throws {
        let decoded = try Self.decoder.decode(AppStoreTransaction.self, from: Data(json.utf8))
        let read = try AppStoreTransaction(#require(JSONFields(parsing: json)))
        #expect(read == decoded)
    }

    @Test("every field is read by name: none is left out")
    func everyFieldReadByName() throws {
        let read = try AppStoreTransaction(#require(JSONFields(parsing: Self.everyField)))
        let unset = Mirror(reflecting: read).children.filter { child in
            let value = Mirror(reflecting: child.value)
            return value.displayStyle == .optional && value.children.isEmpty
        }
        #expect(unset.map(\.label) == [])
        #expect(Mirror(reflecting: read).children.count == 28)
    }

    @Test("read by name, the same fields of the wrong kind refuse it", arguments: [
        #"{"price":"4990"}"#, #"{"purchaseDate":"2024-11-25"}"#, #"{"quantity":1e40}"#,
        #"{"appAccountToken":"not-a-uuid"}"#, #"{"isUpgraded":1}"#, #"{"transactionId":5}"#, #"{"type":["x"]}"#,
        #"{"purchaseDate":1732500000123.5}"#, #"{"price":9223372036854775808}"#,
    ])
    func wrongKindsByName(json: String) throws {
        #expect(throws: (any Error).self) { try Self.decoder.decode(AppStoreTransaction.self, from: Data(json.utf8)) }
        #expect(throws: JSONFields.Problem.self) { try AppStoreTransaction(#require(JSONFields(parsing: json))) }
    }

    @Test("a notification decodes its type, subtype, data and summary, and keeps types Apple adds later")
    func notification() throws {
        let json = """
            {"notificationType":"SOMETHING_NEW","subtype":"SUMMARY","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
             "version":"2.0","signedDate":1732500001000,
             "data":{"environment":"Production","appAppleId":1234567890,"bundleId":"com.example.app","bundleVersion":"42",
                     "signedTransactionInfo":"a.b.c","signedRenewalInfo":"d.e.f","status":1,"consumptionRequestReason":"OTHER"},
             "summary":{"requestIdentifier":"r","environment":"Production","appAppleId":1,"bundleId":"com.example.app",
                        "productId":"p","storefrontCountryCodes":["USA","FRA"],"succeededCount":5,"failedCount":1}}
            """
        let notification = try Self.decoder.decode(AppStoreNotification.self, from: Data(json.utf8))
        #expect(notification.notificationType?.rawValue == "SOMETHING_NEW")
        #expect(notification.subtype == .summary)
        #expect(notification.data?.appAppleId == 1_234_567_890)
        #expect(notification.data?.signedTransactionInfo == "a.b.c")
        #expect(notification.summary?.storefrontCountryCodes == ["USA", "FRA"])
        #expect(notification.signedDate?.millisecondsSince1970 == 1_732_500_001_000)
    }

    @Test("renewal information decodes Apple's fields")
    func renewalInfo() throws {
        let json = """
            {"expirationIntent":1,"originalTransactionId":"2000000123456780","autoRenewProductId":"com.example.app.pro",
             "productId":"com.example.app.pro","autoRenewStatus":0,"isInBillingRetryPeriod":true,"priceIncreaseStatus":1,
             "gracePeriodExpiresDate":1732600000000,"signedDate":1732500001000,"environment":"Production",
             "recentSubscriptionStartDate":1700000000000,"renewalDate":1735092000123,"currency":"EUR","renewalPrice":4990,
             "eligibleWinBackOfferIds":["a","b"],"new":null}
            """
        let renewal = try Self.decoder.decode(AppStoreRenewalInfo.self, from: Data(json.utf8))
        #expect(renewal.autoRenewStatus == 0)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.renewalPrice == 4990)
        #expect(renewal.eligibleWinBackOfferIds == ["a", "b"])
    }
}
