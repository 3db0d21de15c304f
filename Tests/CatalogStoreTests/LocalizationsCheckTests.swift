import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// The database's second line for localizations (migration 0008's PL/pgSQL) keeps the rule of 0006's SQL.
@Suite("Localizations check in the database")
struct LocalizationsCheckTests {
    @Test("iap_localizations_valid answers what migration 0006's version answered, for every kind of input")
    func sameAnswers() async throws {
        let reference = try StoreFixtures.function("iap_localizations_valid", ofMigration: 6,
                                                   renamedTo: "reference_localizations_valid")
        func item(locale: String? = "en-US", name: Int? = 5, description: Int? = 10) -> String {
            var fields: [String] = []
            if let locale { fields.append(#""locale": "\#(locale)""#) }
            if let name { fields.append(#""displayName": "\#(String(repeating: "n", count: name))""#) }
            if let description { fields.append(#""description": "\#(String(repeating: "é", count: description))""#) }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        var cases = ["[]", "{}", "\"text\"", "null", "[1]", "[[]]", "[null]", "[\(item()), 2]"]
        cases += [item(), item(locale: nil), item(locale: "en"), item(locale: "zh-Hans-CN"), item(locale: "es-419"),
                   item(locale: "EN-us"), item(locale: "en-USA"), item(name: nil), item(name: 1), item(name: 2),
                   item(name: 30), item(name: 31), item(description: nil), item(description: 0), item(description: 1),
                   item(description: 45), item(description: 46), item(description: 55), item(description: 56)]
            .map { "[\($0)]" }
        cases.append("[" + Array(repeating: item(), count: 100).joined(separator: ", ") + "]")
        cases.append("[" + Array(repeating: item(), count: 101).joined(separator: ", ") + "]")
        let arrays = cases
        let url = try await TestDatabase.forSuite("localizations_check")
        try await TestDatabase.withDatabase(url) { database in
            try await StoreFixtures.run(reference, in: database)
            var compared = 0
            for type in ["CONSUMABLE", "AUTO_RENEWABLE_SUBSCRIPTION"] {
                for array in arrays {
                    let rows = try await database.client.query("""
                        SELECT iap_localizations_valid(\(array)::jsonb, \(type)::purchase_type),
                               reference_localizations_valid(\(array)::jsonb, \(type)::purchase_type)
                        """)
                    for try await (answer, expected) in rows.decode((Bool?, Bool?).self) {
                        compared += 1
                        #expect(answer == expected, "\(type) \(array.prefix(120))")
                    }
                }
            }
            #expect(compared == 2 * arrays.count)
        }
    }
}
