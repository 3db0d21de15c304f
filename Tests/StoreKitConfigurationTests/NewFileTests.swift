import CatalogTestSupport
import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Building new files")
struct NewFileTests {
    @Test func emptyNewFileHasTheDocumentedShape() {
        let text = StoreKitConfiguration.newFile(identifier: "8165582C").fileText()
        #expect(
            text == """
                {
                  "appPolicies" : {
                    "eula" : "",
                    "policies" : [
                      {
                        "locale" : "en_US",
                        "policyText" : "",
                        "policyURL" : ""
                      }
                    ]
                  },
                  "identifier" : "8165582C",
                  "nonRenewingSubscriptions" : [

                  ],
                  "products" : [

                  ],
                  "settings" : {

                  },
                  "subscriptionGroups" : [

                  ],
                  "version" : {
                    "major" : 4,
                    "minor" : 0
                  }
                }

                """)
    }

    @Test func builtCatalogIsWrittenInXcodeFormat() throws {
        var configuration = StoreKitConfiguration.newFile(identifier: "0C0FFEE0")
        configuration.products.append(
            StoreKitProduct(
                productID: "coins.100", referenceName: "100 Coins", type: .consumable, displayPrice: "0.99",
                internalID: "00000001",
                localizations: [
                    StoreKitLocalization(locale: "en_US", displayName: "100 Coins", description: "A pile of coins"),
                    StoreKitLocalization(locale: "ja", displayName: "コイン100枚", description: ""),
                ]))
        configuration.nonRenewingSubscriptions?.append(
            StoreKitProduct(
                productID: "season", referenceName: "Season", type: .nonRenewingSubscription, displayPrice: "9.99",
                familyShareable: true, internalID: "00000002"))
        let group = StoreKitSubscriptionGroup(
            id: "00000003", name: "Pro",
            localizations: [StoreKitLocalization(locale: "en_US", displayName: "Pro", description: "")],
            subscriptions: [
                StoreKitSubscription(
                    productID: "pro.monthly", referenceName: "Pro Monthly", displayPrice: "4.99",
                    internalID: "00000004", groupNumber: 1, recurringSubscriptionPeriod: .oneMonth,
                    subscriptionGroupID: "00000003",
                    introductoryOffer: .offer(
                        StoreKitOffer(
                            internalID: "00000005", paymentMode: .free, subscriptionPeriod: "P1W",
                            numberOfPeriods: 1)))
            ])
        configuration.subscriptionGroups.append(group)

        #expect(configuration.validationIssues() == [])
        let text = configuration.fileText()
        #expect(
            text == """
                {
                  "appPolicies" : {
                    "eula" : "",
                    "policies" : [
                      {
                        "locale" : "en_US",
                        "policyText" : "",
                        "policyURL" : ""
                      }
                    ]
                  },
                  "identifier" : "0C0FFEE0",
                  "nonRenewingSubscriptions" : [
                    {
                      "displayPrice" : "9.99",
                      "familyShareable" : true,
                      "internalID" : "00000002",
                      "localizations" : [

                      ],
                      "productID" : "season",
                      "referenceName" : "Season",
                      "type" : "NonRenewingSubscription"
                    }
                  ],
                  "products" : [
                    {
                      "displayPrice" : "0.99",
                      "familyShareable" : false,
                      "internalID" : "00000001",
                      "localizations" : [
                        {
                          "description" : "A pile of coins",
                          "displayName" : "100 Coins",
                          "locale" : "en_US"
                        },
                        {
                          "description" : "",
                          "displayName" : "コイン100枚",
                          "locale" : "ja"
                        }
                      ],
                      "productID" : "coins.100",
                      "referenceName" : "100 Coins",
                      "type" : "Consumable"
                    }
                  ],
                  "settings" : {

                  },
                  "subscriptionGroups" : [
                    {
                      "id" : "00000003",
                      "localizations" : [
                        {
                          "description" : "",
                          "displayName" : "Pro",
                          "locale" : "en_US"
                        }
                      ],
                      "name" : "Pro",
                      "subscriptions" : [
                        {
                          "adHocOffers" : [

                          ],
                          "codeOffers" : [

                          ],
                          "displayPrice" : "4.99",
                          "familyShareable" : false,
                          "groupNumber" : 1,
                          "internalID" : "00000004",
                          "introductoryOffer" : {
                            "internalID" : "00000005",
                            "numberOfPeriods" : 1,
                            "paymentMode" : "free",
                            "subscriptionPeriod" : "P1W"
                          },
                          "localizations" : [

                          ],
                          "productID" : "pro.monthly",
                          "recurringSubscriptionPeriod" : "P1M",
                          "referenceName" : "Pro Monthly",
                          "subscriptionGroupID" : "00000003",
                          "type" : "RecurringSubscription",
                          "winbackOffers" : [

                          ]
                        }
                      ]
                    }
                  ],
                  "version" : {
                    "major" : 4,
                    "minor" : 0
                  }
                }

                """)
        #expect(try StoreKitConfiguration(data: Data(text.utf8)) == configuration)
    }

    @Test func generatedIdentifiersAreEightUppercaseHexDigits() {
        for _ in 0..<200 {
            let identifier = StoreKitConfiguration.generateIdentifier()
            #expect(identifier.count == 8)
            #expect(identifier.allSatisfy { $0.isHexDigit && !$0.isLowercase })
        }
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        #expect(
            StoreKitConfiguration.generateIdentifier(using: &first)
                == StoreKitConfiguration.generateIdentifier(using: &second))
        #expect(StoreKitConfiguration.newFile().identifier?.count == 8)
    }
}
