import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("StoreKitJSON parsing")
struct StoreKitJSONTests {
    @Test func keepsIntegersApartFromDoubles() throws {
        let value = try StoreKitJSON(parsing: #"{"a": 1, "b": 1.0, "c": 726861732.61725104, "d": -3, "e": 2e3}"#)
        #expect(value["a"] == .integer(1))
        #expect(value["b"] == .double(1.0))
        #expect(value["c"] == .double(726861732.61725104))
        #expect(value["d"] == .integer(-3))
        #expect(value["e"] == .double(2000))
    }

    @Test func keepsKeyOrderAsRead() throws {
        let value = try StoreKitJSON(parsing: #"{"zeta": 1, "Alpha": 2, "_b": 3, "alpha": 4}"#)
        #expect(value.objectValue?.keys == ["zeta", "Alpha", "_b", "alpha"])
    }

    @Test func acceptsEveryLayout() throws {
        let pretty = "{\n  \"a\" : [\n\n  ],\n  \"b\" : {\n\n  }\n}\n"
        let colonSpace = "{\"a\": [], \"b\": {}}"
        let minified = "{\"a\":[],\"b\":{}}"
        let tabsAndCRLF = "{\r\n\t\"a\"\t:\t[ ],\r\n\t\"b\" : { }\r\n}"
        let withByteOrderMark = Data([0xEF, 0xBB, 0xBF]) + Data(minified.utf8)
        let expected: StoreKitJSON = .object(["a": .array([]), "b": .object([:])])
        for text in [pretty, colonSpace, minified, tabsAndCRLF] {
            #expect(try StoreKitJSON(parsing: text) == expected)
        }
        #expect(try StoreKitJSON(parsing: withByteOrderMark) == expected)
    }

    @Test func keepsNonASCIIAndEscapes() throws {
        let value = try StoreKitJSON(
            parsing: #"["专业版1年", "سجل تاريخ", "Ömür Boyu", "\u00e9\ud83d\ude00", "a\/b", "tab\there", "q\"uote"]"#)
        #expect(
            value == .array([
                "专业版1年", "سجل تاريخ", "Ömür Boyu", "é😀", "a/b", "tab\there", "q\"uote",
            ]))
    }

    @Test func fallsBackToDoubleForIntegersBeyondInt() throws {
        let value = try StoreKitJSON(parsing: "123456789012345678901234567890")
        #expect(value == .double(Double("123456789012345678901234567890")!))
    }

    @Test(arguments: [
        ("{\n  \"a\" : 1,\n}", 3, 1, "expected a key in double quotes"),
        ("{\n  \"a\" 1\n}", 2, 7, "expected ':' after the key"),
        ("[1, 2", 1, 6, "expected ',' or ']' in an array"),
        ("{\"a\": tru}", 1, 7, "invalid literal; expected true"),
        ("{\"a\": \"b}", 1, 7, "unterminated string"),
        ("{\"a\": 01}", 1, 7, "leading zeros are not allowed in a number"),
        ("{\"a\": 1.}", 1, 9, "malformed number; expected a digit"),
        ("{\"a\": 1} x", 1, 10, "after the end of the JSON value"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\" in one object"),
        ("{\"名前\": x}", 1, 8, "unexpected character 'x'; expected a value"),
        ("[\"\\ud83d\"]", 1, 3, "unpaired surrogate"),
        ("[\"a\nb\"]", 1, 4, "control character U+000A must be escaped"),
        ("[1e999]", 1, 2, "number is out of range"),
        ("", 1, 1, "unexpected end of input; expected a value"),
    ])
    func reportsSyntaxErrorsWithLineAndColumn(text: String, line: Int, column: Int, message: String) {
        let error = #expect(throws: StoreKitJSONSyntaxError.self) { try StoreKitJSON(parsing: text) }
        #expect(error?.line == line)
        #expect(error?.column == column)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test func describesSyntaxErrorsWithPosition() {
        let error = #expect(throws: StoreKitJSONSyntaxError.self) { try StoreKitJSON(parsing: "{\n  \"a\" : ]\n}") }
        #expect(error?.description == "line 2, column 9: unexpected character ']'; expected a value")
    }

    @Test func rejectsNestingDeeperThanTheLimit() {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1)
            + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        let error = #expect(throws: StoreKitJSONSyntaxError.self) { try StoreKitJSON(parsing: deep) }
        #expect(error?.message.contains("nesting deeper") == true)
        let shallowEnough = String(repeating: "[", count: JSONParser.maximumDepth)
            + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try StoreKitJSON(parsing: shallowEnough) }
    }

    @Test func comparesSemantically() throws {
        let hand = try StoreKitJSON(parsing: #"{"b": [1.0, {"y": null, "x": true}], "a": "s"}"#)
        let xcode = try StoreKitJSON(parsing: #"{"a": "s", "b": [1, {"x": true, "y": null}]}"#)
        #expect(hand != xcode)
        #expect(hand.isEquivalent(to: xcode))
        #expect(!hand.isEquivalent(to: try StoreKitJSON(parsing: #"{"a": "s", "b": [1.5, {"x": true, "y": null}]}"#)))
        #expect(!StoreKitJSON.integer(9_007_199_254_740_993).isEquivalent(to: .double(9_007_199_254_740_992)))
    }

    @Test func objectKeepsInsertionOrderWhenEdited() {
        var object: StoreKitJSONObject = ["b": 1, "a": 2]
        object["c"] = 3
        object["b"] = 4
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object["b"] == 4)
        #expect(object.sortedForXcode().keys == ["b", "c"])
    }
}
