import Foundation
import Testing

@testable import StoreKitConfiguration

/// The issues of an invalid document as `path: message` lines; empty when it is valid.
private func issues(_ text: String) throws -> [String] {
    do {
        _ = try StoreKitConfiguration(data: Data(text.utf8))
        return []
    } catch .invalid(let issues) {
        return issues.map(\.description)
    } catch {
        Issue.record("unexpected error: \(error)")
        return []
    }
}

/// A valid file with `product` as its only consumable and `subscription` in one group "G1".
private func document(product: String = validProduct, subscription: String = validSubscription) -> String {
    """
    {"products": [\(product)],
     "subscriptionGroups": [{"id": "G1", "localizations": [], "name": "Group", "subscriptions": [\(subscription)]}],
     "version": {"major": 3, "minor": 0}}
    """
}

private let validProduct = #"""
    {"displayPrice": "0.99", "familyShareable": false, "internalID": "A1", "localizations": [],
     "productID": "coins", "referenceName": "Coins", "type": "Consumable"}
    """#

private let validSubscription = #"""
    {"adHocOffers": [], "codeOffers": [], "displayPrice": "4.99", "familyShareable": false, "groupNumber": 1,
     "internalID": "S1", "introductoryOffer": null, "localizations": [], "productID": "monthly",
     "recurringSubscriptionPeriod": "P1M", "referenceName": "Monthly", "subscriptionGroupID": "G1",
     "type": "RecurringSubscription"}
    """#

@Suite("Validation")
struct ValidationTests {
    @Test func validBaseDocumentHasNoIssues() throws {
        #expect(try issues(document()) == [])
    }

    @Test func reportsEveryIssueWithItsPath() throws {
        let text = #"""
            {
              "identifier": 12345678,
              "products": [
                {"displayPrice": "0.99", "familyShareable": false, "internalID": "1", "localizations": [],
                 "productID": "x", "referenceName": "X", "type": "AutoRenewable"},
                {"displayPrice": 1.99, "familyShareable": false, "internalID": "2",
                 "localizations": [{"description": "", "displayName": 5, "locale": "en_US"}],
                 "productID": "x", "referenceName": "Dup", "type": "Consumable"},
                {"displayPrice": "$4.99", "familyShareable": "no", "internalID": "3", "localizations": [],
                 " productID": "y", "referenceName": "Spaced", "type": "RecurringSubscription"}
              ],
              "nonRenewingSubscriptions": [
                {"displayPrice": "2,99", "familyShareable": false, "internalID": "4", "localizations": [],
                 "productID": "season", "referenceName": "Season", "type": "Consumable"}
              ],
              "settings": {"_lastSynchronizedDate": "2024-05-01T00:00:00Z", "_timeRate": "fast", "_Locale": "en_US"},
              "subscriptionGroups": [
                {"id": "G1", "localizations": [], "name": "G", "subscriptions": [
                  {"adHocOffers": [], "codeOffers": [{"internalID": "c", "paymentMode": "free", "subscriptionPeriod": "P1M", "numberOfPeriods": 0}],
                   "displayPrice": "4.99", "familyShareable": false, "groupNumber": "1", "internalID": "s",
                   "introductoryOffer": {"internalID": "o", "paymentMode": "free", "subscriptionPeriod": "1 month"},
                   "localizations": [{"description": "", "displayName": "Monthly", "locale": "en_US"},
                                     {"description": "", "locale": "de"}],
                   "productID": "x", "recurringSubscriptionPeriod": "P5M", "referenceName": "M",
                   "subscriptionGroupID": "G2", "type": "AutoRenewableSubscription"}
                ]},
                {"id": "G1", "localizations": [], "name": "Again", "subscriptions": []}
              ],
              "version": {"major": 3}
            }
            """#
        #expect(
            try issues(text) == [
                #"identifier: expected a string, found a number"#,
                #"nonRenewingSubscriptions[0].type: Consumable is only allowed inside products"#,
                #"nonRenewingSubscriptions[0].displayPrice: price "2,99" is not a plain non-negative decimal string such as "0.99" or "100""#,
                #"products[0].type: unknown product type "AutoRenewable"; expected one of Consumable, NonConsumable, NonRenewingSubscription"#,
                #"products[1].displayPrice: expected a string, found a number"#,
                #"products[1].localizations[0].displayName: expected a string, found a number"#,
                #"products[2][" productID"]: unexpected key " productID"; did you mean "productID"?"#,
                #"products[2].productID: missing required key "productID""#,
                #"products[2].type: RecurringSubscription is only allowed inside subscriptionGroups[].subscriptions"#,
                #"products[2].displayPrice: price "$4.99" is not a plain non-negative decimal string such as "0.99" or "100""#,
                #"products[2].familyShareable: expected a boolean, found a string"#,
                #"settings._Locale: unexpected key "_Locale"; did you mean "_locale"?"#,
                #"settings._lastSynchronizedDate: expected a number, found a string"#,
                #"settings._timeRate: expected an integer, found a string"#,
                #"subscriptionGroups[0].subscriptions[0].type: unknown product type "AutoRenewableSubscription"; expected RecurringSubscription"#,
                #"subscriptionGroups[0].subscriptions[0].localizations[1].displayName: missing required key "displayName""#,
                #"subscriptionGroups[0].subscriptions[0].groupNumber: expected an integer, found a string"#,
                #"subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: recurringSubscriptionPeriod "P5M" is not one of P1W, P1M, P2M, P3M, P6M, P1Y"#,
                #"subscriptionGroups[0].subscriptions[0].subscriptionGroupID: subscriptionGroupID "G2" does not match the enclosing group's id "G1""#,
                #"subscriptionGroups[0].subscriptions[0].introductoryOffer.subscriptionPeriod: subscriptionPeriod "1 month" is not an ISO 8601 duration such as P3D, P1W, P1M or P1Y"#,
                #"subscriptionGroups[0].subscriptions[0].codeOffers[0].numberOfPeriods: expected an integer of at least 1, found 0"#,
                #"version.minor: missing required key "minor""#,
                #"products[1].productID: duplicate productID "x" (first at products[0])"#,
                #"subscriptionGroups[0].subscriptions[0].productID: duplicate productID "x" (first at products[0])"#,
                #"subscriptionGroups[1].id: duplicate subscription group id "G1" (first at subscriptionGroups[0])"#,
            ])
    }

    @Test func reportsMissingTopLevelKeys() throws {
        #expect(
            try issues(#"{"products": []}"#) == [
                #"subscriptionGroups: missing required key "subscriptionGroups""#,
                #"version: missing required key "version""#,
            ])
        #expect(try issues(#"[]"#) == ["expected an object, found an array"])
    }

    @Test func rejectsLookAlikeKeysThatReplaceRequiredOnes() throws {
        let product = validProduct.replacingOccurrences(of: #""displayPrice""#, with: #"" displayPrice ""#)
            .replacingOccurrences(of: #""type""#, with: #""Type""#)
        #expect(
            try issues(document(product: product)) == [
                #"products[0][" displayPrice "]: unexpected key " displayPrice "; did you mean "displayPrice"?"#,
                #"products[0].Type: unexpected key "Type"; did you mean "type"?"#,
                #"products[0].type: missing required key "type""#,
                #"products[0].displayPrice: missing required key "displayPrice""#,
            ])
    }

    @Test func rejectsIntroductoryOfferOfTheWrongShape() throws {
        let subscription = validSubscription.replacingOccurrences(
            of: #""introductoryOffer": null"#, with: #""introductoryOffer": [], "introductoryOffers": {}"#)
        #expect(
            try issues(document(subscription: subscription)) == [
                #"subscriptionGroups[0].subscriptions[0].introductoryOffer: expected an object or null, found an array"#,
                #"subscriptionGroups[0].subscriptions[0].introductoryOffers: expected an array, found an object"#,
            ])
    }

    @Test(arguments: ["0.99", "99", "100", "2.00", "41.50", "0.5", "0"])
    func acceptsPlainDecimalPrices(price: String) throws {
        let product = validProduct.replacingOccurrences(of: #""0.99""#, with: "\"\(price)\"")
        #expect(try issues(document(product: product)) == [])
    }

    @Test(arguments: ["", "-1", "1,99", ".5", "5.", "1.2.3", "$1", "1e2", " 1", "١٢"])
    func rejectsOtherPrices(price: String) throws {
        let product = validProduct.replacingOccurrences(of: #""0.99""#, with: "\"\(price)\"")
        let found = try issues(document(product: product))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("products[0].displayPrice: price ") == true)
    }

    @Test func acceptsWhatRealFilesDo() throws {
        // Empty displayName and description, paymentMode "none", a stale price
        // on a free offer, no numberOfPeriods, unknown keys, an offer period
        // that is not a renewal period, and a synced numeric id.
        let subscription = #"""
            {"adHocOffers": [{"internalID": "A", "offerID": "promo", "paymentMode": "none", "referenceName": "",
                              "subscriptionPeriod": "P2W"}],
             "displayPrice": "4.99", "familyShareable": false, "groupNumber": 2, "internalID": "6741366983",
             "introductoryOffer": {"displayPrice": "0.99", "internalID": "B", "paymentMode": "free",
                                   "subscriptionPeriod": "P3D"},
             "localizations": [{"description": "", "displayName": "", "locale": "zh_Hans"}],
             "productID": "monthly", "recurringSubscriptionPeriod": "P1M", "referenceName": "月",
             "subscriptionGroupID": "G1", "type": "RecurringSubscription", "futureKey": {"a": 1}}
            """#
        #expect(try issues(document(subscription: subscription)) == [])
        let configuration = try StoreKitConfiguration(data: Data(document(subscription: subscription).utf8))
        let read = configuration.subscriptionGroups[0].subscriptions[0]
        #expect(read.adHocOffers?[0].paymentMode == StoreKitPaymentMode.none)
        #expect(read.unknownKeys["futureKey"] == .object(["a": 1]))
        #expect(read.codeOffers == nil)
    }

    @Test func keepsUnknownPaymentModes() throws {
        let subscription = validSubscription.replacingOccurrences(
            of: #""introductoryOffer": null"#,
            with: #""introductoryOffer": {"internalID": "B", "paymentMode": "payLater", "subscriptionPeriod": "P1M"}"#)
        let configuration = try StoreKitConfiguration(data: Data(document(subscription: subscription).utf8))
        let offer = try #require(configuration.subscriptionGroups[0].subscriptions[0].introductoryOffer.offer)
        #expect(offer.paymentMode == .other("payLater"))
        #expect(offer.jsonValue()["paymentMode"] == "payLater")
    }

    @Test func syntaxErrorsAreReportedAsSuch() {
        let error = #expect(throws: StoreKitConfigurationError.self) {
            try StoreKitConfiguration(data: Data("{\"products\": [}".utf8))
        }
        guard case .syntax(let syntax) = error else {
            Issue.record("expected a syntax error, got \(String(describing: error))")
            return
        }
        #expect(syntax.line == 1 && syntax.column == 15)
        #expect(error?.issues == [])
    }

    @Test func errorDescriptionListsEveryIssue() throws {
        let product = validProduct.replacingOccurrences(of: #""Consumable""#, with: #""Subscription""#)
            .replacingOccurrences(of: #""0.99""#, with: "0.99")
        let error = #expect(throws: StoreKitConfigurationError.self) {
            try StoreKitConfiguration(data: Data(document(product: product).utf8))
        }
        #expect(
            error?.description == """
                2 problems in the StoreKit configuration:
                - products[0].type: unknown product type "Subscription"; expected one of Consumable, NonConsumable, NonRenewingSubscription
                - products[0].displayPrice: expected a string, found a number
                """)
    }

    @Test func validatesModelsBuiltInCode() {
        var configuration = StoreKitConfiguration.newFile(identifier: "0000000A")
        configuration.products = [
            StoreKitProduct(productID: "a", referenceName: "A", type: .consumable, displayPrice: "0.99"),
            StoreKitProduct(productID: "a", referenceName: "B", type: .nonRenewingSubscription, displayPrice: "€1"),
        ]
        #expect(
            configuration.validationIssues().map(\.description) == [
                "products[1].type: NonRenewingSubscription is only allowed inside nonRenewingSubscriptions",
                #"products[1].displayPrice: price "€1" is not a plain non-negative decimal string such as "0.99" or "100""#,
                #"products[1].productID: duplicate productID "a" (first at products[0])"#,
            ])
    }
}
