import CatalogCore
import Foundation
import Testing

@Suite("JSON objects written member by member")
struct JSONObjectWriterTests {
    /// The same members, written by `JSONEncoder`.
    struct Row: Encodable {
        let name: String
        let note: String?
        let count: Int
        let price: Int64?
        let done: Bool
        let seen: Bool?
        let tags: [String]
        let item: Item?
        let items: [Item]
    }

    struct Item: Encodable {
        let name: String
        let count: Int?
    }

    static func written(_ row: Row) -> String {
        func item(_ item: Item) -> JSONObjectWriter {
            var object = JSONObjectWriter()
            object.add("name", item.name)
            object.add("count", item.count)
            return object
        }
        var object = JSONObjectWriter()
        object.add("name", row.name)
        object.add("note", row.note)
        object.add("count", row.count)
        object.add("price", row.price)
        object.add("done", row.done)
        object.add("seen", row.seen)
        object.add("tags", strings: row.tags)
        object.add("item", row.item.map(item))
        object.add("items", row.items.map(item))
        return object.text
    }

    static let rows = [
        Row(name: "", note: nil, count: 0, price: nil, done: false, seen: nil, tags: [], item: nil, items: []),
        Row(name: "caf\u{e9} \"quoted\" \\ / \u{1F389}\n\t\u{0}\u{1F}\u{7F}\u{2028}", note: "n", count: Int.min,
            price: Int64.max, done: true, seen: false, tags: ["x", "", "\"", "\u{8}\u{C}\r"],
            item: Item(name: "i", count: nil), items: [Item(name: "j", count: -1), Item(name: "k", count: 2)]),
    ]

    @Test("the members and values JSONEncoder writes, escapes and integers' extremes among them",
          arguments: rows.indices)
    func sameAsJSONEncoder(_ index: Int) throws {
        let row = Self.rows[index]
        let text = Self.written(row)
        let encoded = try JSONEncoder().encode(row)
        let written = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        let expected = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        #expect(written != nil && written == expected)
    }

    @Test("objects as an array; nothing added is {}")
    func arrays() throws {
        var one = JSONObjectWriter()
        one.add("a", 1)
        #expect(JSONObjectWriter.array([one, JSONObjectWriter()]) == #"[{"a":1},{}]"#)
        #expect(JSONObjectWriter.array([]) == "[]")
        var outer = JSONObjectWriter()
        outer.add("inner", one)
        outer.add("none", nil as JSONObjectWriter?)
        outer.add("list", [one])
        #expect(outer.text == #"{"inner":{"a":1},"list":[{"a":1}]}"#)
    }
}
