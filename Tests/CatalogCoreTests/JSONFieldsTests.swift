import CatalogCore
import Foundation
import Testing

@Suite("JSON objects read by member")
struct JSONFieldsTests {
    /// The same members, read by `JSONDecoder`.
    struct Row: Decodable, Equatable {
        let name: String
        let note: String?
        let count: Int
        let price: Int64?
        let done: Bool
        let seen: Bool?
        let tags: [String]
        let labels: [String]?
        let items: [Item]?
    }

    struct Item: Decodable, Equatable {
        let name: String
        let count: Int?
    }

    static func read(_ text: String) throws -> Row {
        guard let row = JSONFields(parsing: text) else { throw JSONFields.Problem(key: "", expected: "an object") }
        return Row(
            name: try row.string("name"), note: try row.string(ifPresent: "note"), count: try row.integer("count"),
            price: try row.integer(ifPresent: "price"), done: try row.bool("done"), seen: try row.bool(ifPresent: "seen"),
            tags: try row.strings("tags"), labels: try row.strings(ifPresent: "labels"),
            items: try row.objects(ifPresent: "items")?.map {
                Item(name: try $0.string("name"), count: try $0.integer(ifPresent: "count"))
            })
    }

    static let base = #""name": "a", "count": 1, "done": false, "tags": []"#

    @Test("what JSONDecoder reads, read the same; what it refuses, refused", arguments: [
        "{\(base)}",
        #"{"name": "caf\u00e9 \"quoted\" \\ \ud83c\udf89", "note": "n", "count": -7, "price": 9223372036854775807, "done": true, "seen": false, "tags": ["x", ""], "labels": ["l"], "items": [{"name": "i", "count": 2}, {"name": "j"}]}"#,
        "{\(base), \"note\": null, \"price\": null, \"seen\": null, \"labels\": null, \"items\": null}",
        "{\(base), \"items\": [{\"name\": \"i\", \"count\": null, \"extra\": {\"deep\": [1, 2]}}]}",
        "{\(base), \"name\": \"written twice: the first is read\"}",
        "{\(base), \"unknown\": [true, {\"x\": null}]}",
        // Refused by both: a missing member, a null where a value must be, wrong types, a number out of range.
        #"{"count": 1, "done": false, "tags": []}"#,
        #"{"name": null, "count": 1, "done": false, "tags": []}"#,
        #"{"name": "a", "count": "1", "done": false, "tags": []}"#,
        #"{"name": "a", "count": 1, "done": 0, "tags": []}"#,
        #"{"name": "a", "count": 1, "done": false, "tags": [1]}"#,
        #"{"name": "a", "count": 1, "done": false, "tags": "x"}"#,
        "{\(base), \"items\": [\"i\"]}",
        "{\(base), \"items\": {\"name\": \"i\"}}",
        "{\(base), \"price\": 9223372036854775808}",
        #"{"name": "a", "count": 1.5, "done": false, "tags": []}"#,
        "[\(base)]",
        "{\(base)",
    ])
    func agreesWithJSONDecoder(_ text: String) throws {
        let decoded = try? JSONDecoder().decode(Row.self, from: Data(text.utf8))
        let read = try? Self.read(text)
        #expect(read == decoded)
    }

    @Test("a number is an integer only when written as one (PostgreSQL writes integers so); JSONDecoder also takes 1.0")
    func integersAsWritten() throws {
        let text = "{\(Self.base.replacingOccurrences(of: "\"count\": 1", with: "\"count\": 1.0"))}"
        #expect((try? JSONDecoder().decode(Row.self, from: Data(text.utf8)))?.count == 1)
        #expect(throws: JSONFields.Problem(key: "count", expected: "an integer of Int's range")) { try Self.read(text) }
    }

    @Test("a problem names the member and what it should be")
    func problemNamesMember() throws {
        let row = try #require(JSONFields(parsing: #"{"a": 1, "b": "x", "c": null}"#))
        #expect(throws: JSONFields.Problem(key: "a", expected: "a string")) { try row.string("a") }
        #expect(throws: JSONFields.Problem(key: "b", expected: "true or false")) { try row.bool("b") }
        #expect(throws: JSONFields.Problem(key: "c", expected: "a string")) { try row.string("c") }
        #expect(throws: JSONFields.Problem(key: "d", expected: "an array of strings")) { try row.strings("d") }
        #expect(try row.string(ifPresent: "c") == nil && row.integer(ifPresent: "d", as: Int.self) == nil)
        #expect("\(JSONFields.Problem(key: "a", expected: "a string"))" == #"the member "a" is not a string"#)
    }
}
