import CatalogAPI
import CatalogCore
import Foundation
import OpenAPIRuntime
import Testing

@testable import CatalogServer

@Suite("A change's value in the API")
struct JSONValueMappingTests {
    @Test("made directly, the same free-form JSON as decoded from the value's JSON text")
    func sameAsThroughText() throws {
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .integer(0), .integer(-7), .integer(.max), .number(1.5), .number(1e23),
            .string(""), .string("é \"金\" 🎉\n"), .array([]), .object([:]),
            .array([.null, .integer(1), .string("a"), .array([.bool(false)]), .object(["k": .null])]),
            .object(["locale": .string("en-US"), "price": .object(["amount": .string("0.99"), "cents": .integer(99)]),
                     "tags": .array([.string("x"), .number(-0.25)])]),
        ]
        // Two equal dictionaries may list their keys in different orders, so the texts are compared with sorted keys.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for value in values {
            let throughText = try JSONDecoder().decode(OpenAPIValueContainer.self, from: JSONEncoder().encode(value))
            let direct = try OpenAPIValueContainer(value)
            #expect(direct == throughText, "\(value)")
            #expect(try encoder.encode(direct) == encoder.encode(throughText), "\(value)")
        }
    }

    @Test("a change keeps its field and leaves out an absent value")
    func fieldChange() throws {
        let change = try Components.Schemas.FieldChange(FieldChange(field: "price", old: nil, new: .object(["cents": .integer(99)])))
        #expect(change.field == "price")
        #expect(change.old == nil)
        #expect(change.new == (try OpenAPIValueContainer(unvalidatedValue: ["cents": 99])))
    }
}
