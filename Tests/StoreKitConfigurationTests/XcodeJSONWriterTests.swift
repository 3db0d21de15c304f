import CatalogTestSupport
import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Xcode JSON writer")
struct XcodeJSONWriterTests {
    @Test(arguments: StoreKitFixture.xcodeWritten)
    func reproducesXcodeWrittenFixturesByteForByte(fixture: StoreKitFixture) throws {
        let data = try fixture.data
        let written = XcodeJSONWriter.data(for: try StoreKitJSON(parsing: data))
        #expect(written == data, "first difference at byte \(firstDifference(written, data) ?? -1)")
    }

    @Test func writesXcodeLayout() throws {
        let value = try StoreKitJSON(
            parsing: #"{"version":{"minor":0,"major":4},"settings":{"_storeKitErrors":[],"_storefront":"USA"},"products":[],"empty":{},"list":["a",true,null,-2,0.5]}"#
        )
        let expected = """
            {
              "empty" : {

              },
              "list" : [
                "a",
                true,
                null,
                -2,
                0.5
              ],
              "products" : [

              ],
              "settings" : {
                "_storefront" : "USA",
                "_storeKitErrors" : [

                ]
              },
              "version" : {
                "major" : 4,
                "minor" : 0
              }
            }

            """
        #expect(XcodeJSONWriter.string(for: value) == expected)
    }

    @Test func sortsKeysCaseInsensitively() {
        let keys = ["_storeKitErrors", "recurringSubscriptionPeriod", "_storefront", "productID", "B", "a", "A", "_a"]
        #expect(
            keys.sorted(by: XcodeJSONWriter.keyPrecedes)
                == ["_a", "_storefront", "_storeKitErrors", "A", "a", "B", "productID", "recurringSubscriptionPeriod"])
    }

    @Test func writesDoublesWithSeventeenDigitsAndIntegersPlain() {
        #expect(XcodeJSONWriter.string(for: .double(769385915.91394401)) == "769385915.91394401\n")
        #expect(XcodeJSONWriter.string(for: .double(0.1)) == "0.10000000000000001\n")
        // A hand-written `748108800.0` loses its `.0`, as it does when Xcode saves it.
        #expect(XcodeJSONWriter.string(for: .double(748108800.0)) == "748108800\n")
        #expect(XcodeJSONWriter.string(for: .integer(1003)) == "1003\n")
        #expect(XcodeJSONWriter.string(for: .double(.nan)) == "null\n")
    }

    @Test func escapesOnlyWhatJSONRequires() {
        let text = XcodeJSONWriter.string(for: .string("https://addy.io/privacy \"q\" \\ \n\t\u{01} 専用 🙂"))
        #expect(text == #""https://addy.io/privacy \"q\" \\ \n\t\u0001 専用 🙂""# + "\n")
    }
}

private func firstDifference(_ a: Data, _ b: Data) -> Int? {
    zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? (a.count == b.count ? nil : min(a.count, b.count))
}
