import CatalogTestSupport
import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Real fixtures through the model")
struct FixtureModelTests {
    @Test(arguments: StoreKitFixture.allCases)
    func decodes(fixture: StoreKitFixture) throws {
        let configuration = try StoreKitConfiguration(data: try fixture.data)
        // Format 1.0 files have no identifier.
        #expect(configuration.identifier?.count == (configuration.version.description == "1.0" ? nil : 8))
    }

    @Test("format 1.0 (no final newline) comes back as Xcode writes it now: the same bytes and a final newline")
    func format10() throws {
        let data = try StoreKitFixture.revenueCatSwiftExample.data
        let configuration = try StoreKitConfiguration(data: data)
        #expect(configuration.version.description == "1.0" && configuration.nonRenewingSubscriptions == nil)
        #expect(configuration.fileText() == (try StoreKitFixture.revenueCatSwiftExample.exportText))
    }

    @Test("older files: a null reference name and an empty offer price are read and written back as they were")
    func olderShapes() throws {
        for variant in StoreKitVariant.allCases {
            let configuration = try StoreKitConfiguration(data: try variant.data)
            #expect(configuration.fileText() == (try variant.exportText), "\(variant)")
        }
        let named = try StoreKitConfiguration(data: try StoreKitVariant.nullReferenceName.data)
        #expect(named.products[0].referenceName == nil)
        let offer = try StoreKitConfiguration(data: try StoreKitVariant.emptyOfferPrice.data)
        #expect(offer.subscriptionGroups[0].subscriptions[0].introductoryOffer.offer?.displayPrice == "")
    }

    @Test(arguments: StoreKitFixture.xcodeWritten)
    func writesTheModelBackByteForByte(fixture: StoreKitFixture) throws {
        let data = try fixture.data
        let configuration = try StoreKitConfiguration(data: data)
        #expect(configuration.jsonValue() == (try StoreKitJSON(parsing: data)))
        #expect(configuration.fileData() == data)
        #expect(configuration.validationIssues().isEmpty)
    }

    @Test(arguments: StoreKitFixture.allCases)
    func readsItsOwnOutputBackToTheSameModel(fixture: StoreKitFixture) throws {
        let configuration = try StoreKitConfiguration(data: try fixture.data)
        #expect(try StoreKitConfiguration(data: configuration.fileData()) == configuration)
    }

    @Test func foodTruckVersion2() throws {
        let configuration = try StoreKitConfiguration(data: try StoreKitFixture.foodTruck.data)
        #expect(configuration.version.description == "2.0")
        #expect(configuration.appPolicies == nil)
        let product = try #require(configuration.products.first)
        #expect(product.type == .nonConsumable)
        #expect(product.displayPrice == "0.99")
        #expect(product.localizations.map(\.locale) == ["en_US", "ar"])
        #expect(product.localizations[1].displayName == "سجل تاريخ لمدة عام")

        let subscriptions = configuration.subscriptionGroups[0].subscriptions
        #expect(subscriptions.map(\.groupNumber) == [1, 1], "ties are allowed")
        let payAsYouGo = try #require(subscriptions[0].introductoryOffer.offer)
        #expect(payAsYouGo.paymentMode == .payAsYouGo)
        #expect(payAsYouGo.numberOfPeriods == 3)
        #expect(payAsYouGo.displayPrice == "2.49")
        let payUpFront = try #require(subscriptions[1].introductoryOffer.offer)
        #expect(payUpFront.paymentMode == .payUpFront)
        #expect(payUpFront.numberOfPeriods == nil)
        #expect(subscriptions[0].codeOffers?[0].eligibility == ["existing", "new", "expired"])
        #expect(subscriptions[0].codeOffers?[0].isStackable == true)
        #expect(subscriptions[1].codeOffers?[0].displayPrice == "29.99")
        #expect(subscriptions[0].winbackOffers == nil)
        #expect(subscriptions[0].introductoryOffers == nil)
    }

    @Test func cisumKeepsStalePricesAndChineseNames() throws {
        let configuration = try StoreKitConfiguration(data: try StoreKitFixture.cisum.data)
        let nonRenewing = try #require(configuration.nonRenewingSubscriptions)
        #expect(nonRenewing.map(\.displayPrice) == ["79", "1.99", "1"])
        #expect(nonRenewing.allSatisfy { $0.type == .nonRenewingSubscription })
        #expect(nonRenewing[0].referenceName == "专业版1年")
        #expect(nonRenewing[0].localizations[0].description == "专业版1年使用许可")
        let staleFree = try #require(configuration.subscriptionGroups[0].subscriptions[1].introductoryOffer.offer)
        #expect(staleFree.paymentMode == .free)
        #expect(staleFree.displayPrice == "0.99")
        #expect(configuration.settings?["_compatibilityTimeRate"]?["3"] == .integer(6))
        #expect(configuration.settings?["_timeRate"] == .integer(15))
    }

    @Test func joodleVersion6Point3() throws {
        let configuration = try StoreKitConfiguration(data: try StoreKitFixture.joodle.data)
        #expect(configuration.version.description == "6.3")
        #expect(configuration.unknownKeys.keys == ["subscriptionBundleGroups", "subscriptionSuiteGroups"])
        #expect(configuration.settings?["_lastSynchronizedDate"] == .double(804965276.43550706))
        let monthly = configuration.subscriptionGroups[0].subscriptions[0]
        #expect(monthly.introductoryOffer == .absent)
        #expect(monthly.introductoryOffers == [])
        #expect(monthly.allIntroductoryOffers.isEmpty)
        #expect(monthly.billingPlans?[0].internalID == "6757140768_BILLED_UPFRONT")
        #expect(monthly.billingPlans?[0].commitmentDisplayPrice == "3.98")
        #expect(monthly.codeOffers?[0].internalID == "8ab414ac-7421-4ec9-8300-9f4e9525393c")
        #expect(monthly.codeOffers?[0].billingPlanType == "BILLED_UPFRONT")
        let names = Set(configuration.products[0].localizations.map(\.displayName))
        #expect(names.contains("Joodle Pro 永久版"))
        #expect(names.contains("Joodle Pro 평생 라이선스"))
        #expect(names.contains("Joodle Pro Ömür Boyu"))
        #expect(configuration.subscriptionGroups[0].subscriptions[1].codeOffers?[2].referenceName == "Mergeek 推广")
    }

    @Test func leftPocketSyncedFile() throws {
        let configuration = try StoreKitConfiguration(data: try StoreKitFixture.leftPocket.data)
        #expect(configuration.products[0].internalID == "6744752433")
        #expect(configuration.products[0].referenceName == "Lifetime $149.99")
        let monthly = configuration.subscriptionGroups[0].subscriptions[2]
        let winback = try #require(monthly.winbackOffers?.first)
        #expect(winback.offerID == "winbackoffer_399_1m")
        #expect(winback.isEligible == true)
        #expect(winback.numberOfPeriods == 12)
        #expect(configuration.subscriptionGroups[0].subscriptions[4].introductoryOffer.offer?.subscriptionPeriod == "P3D")
    }

    @Test func backyardBirdsAndGlagolitsa() throws {
        let birds = try StoreKitConfiguration(data: try StoreKitFixture.backyardBirds.data)
        #expect(birds.subscriptionGroups[0].subscriptions.map(\.groupNumber) == [3, 2, 1])
        #expect(birds.subscriptionGroups[0].subscriptions.map(\.familyShareable) == [false, true, true])
        #expect(birds.settings?["_timeRate"] == nil)

        let glagolitsa = try StoreKitConfiguration(data: try StoreKitFixture.glagolitsa.data)
        #expect(glagolitsa.version.description == "5.0")
        #expect(glagolitsa.subscriptionGroups.isEmpty)
        #expect(glagolitsa.products[0].localizations[0].displayName == "")
        #expect(glagolitsa.settings?["_storeKitErrors"]?[0]?["current"] == nil)
    }
}
