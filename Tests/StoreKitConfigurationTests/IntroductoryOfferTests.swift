import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Introductory offer spellings")
struct IntroductoryOfferTests {
    private func subscription(_ offerKeys: String) throws -> StoreKitSubscription {
        let text = """
            {"products": [], "version": {"major": 5, "minor": 0},
             "subscriptionGroups": [{"id": "G", "localizations": [], "name": "G", "subscriptions": [
               {"displayPrice": "0.99", "familyShareable": false, "groupNumber": 1, "internalID": "S",
                "localizations": [], "productID": "p", "recurringSubscriptionPeriod": "P1M",
                "referenceName": "P", "subscriptionGroupID": "G", "type": "RecurringSubscription"\(offerKeys)}]}]}
            """
        let configuration = try StoreKitConfiguration(data: Data(text.utf8))
        let subscription = configuration.subscriptionGroups[0].subscriptions[0]
        // Whatever the spelling, writing keeps it exactly.
        #expect(try StoreKitJSON(parsing: configuration.fileData()).isEquivalent(to: try StoreKitJSON(parsing: text)))
        return subscription
    }

    private let trial = #"{"internalID": "T1", "numberOfPeriods": 1, "paymentMode": "free", "subscriptionPeriod": "P1W"}"#

    @Test func absent() throws {
        let read = try subscription("")
        #expect(read.introductoryOffer == .absent)
        #expect(read.introductoryOffers == nil)
        #expect(read.allIntroductoryOffers.isEmpty)
        #expect(read.jsonValue()["introductoryOffer"] == nil)
    }

    @Test func legacyNull() throws {
        let read = try subscription(#", "introductoryOffer": null"#)
        #expect(read.introductoryOffer == .null)
        #expect(read.allIntroductoryOffers.isEmpty)
        #expect(read.jsonValue()["introductoryOffer"] == .null)
    }

    @Test func legacyObject() throws {
        let read = try subscription(#", "introductoryOffer": "# + trial)
        #expect(read.introductoryOffer.offer?.internalID == "T1")
        #expect(read.introductoryOffer.offer?.subscriptionPeriod == "P1W")
        #expect(read.allIntroductoryOffers.map(\.internalID) == ["T1"])
    }

    @Test func version5Array() throws {
        let second = #"{"billingPlanType": "MONTHLY", "displayPrice": "0.49", "internalID": "T2", "numberOfPeriods": 3, "paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M"}"#
        let read = try subscription(#", "introductoryOffers": ["# + trial + ", " + second + "]")
        #expect(read.introductoryOffer == .absent)
        #expect(read.introductoryOffers?.map(\.internalID) == ["T1", "T2"])
        #expect(read.introductoryOffers?[1].billingPlanType == "MONTHLY")
        #expect(read.allIntroductoryOffers.count == 2)
    }

    @Test func bothSpellingsAsRevenueCatWritesThem() throws {
        let read = try subscription(#", "introductoryOffer": "# + trial + #", "introductoryOffers": ["# + trial + "]")
        #expect(read.introductoryOffer.offer != nil)
        #expect(read.introductoryOffers?.count == 1)
        #expect(read.allIntroductoryOffers.map(\.internalID) == ["T1"], "the same offer is listed once")
    }
}
