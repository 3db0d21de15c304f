@testable import CatalogCore
import Foundation
import Testing

@Suite("Canonical JSON and the history's changes")
struct CanonicalJSONTests {
    /// The escaping the history's hashes have covered since the first migration, a character at a time.
    private func referenceQuoted(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    @Test("a string is quoted byte by byte exactly as character by character")
    func quotedMatchesReference() {
        let scalars = (0..<0x250).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{FEFF}", "金", "🎉"]
        for scalar in scalars {
            for text in ["a" + String(scalar) + "\u{1}" + String(scalar), String(scalar) + String(scalar) + "b"] {
                #expect(CanonicalJSON.quoted(text) == referenceQuoted(text), "U+\(String(scalar.value, radix: 16))")
                // Bytes that are not contiguous in memory take the loop a byte at a time.
                var output: [UInt8] = []
                CanonicalJSON.appendQuoted(text.utf8.lazy.map { $0 }, to: &output)
                #expect(String(decoding: output, as: UTF8.self) == referenceQuoted(text), "U+\(String(scalar.value, radix: 16))")
            }
        }
        #expect(CanonicalJSON.quoted("") == #""""#)
    }

    @Test("numbers are RFC 8259's, kept as written")
    func numbers() {
        for valid in ["0", "-0", "1.50", "1e3", "1E+3", "2.5e-3", "-12", "[1,-0.0]"] {
            #expect(CanonicalJSON.canonical(valid) == valid, "\(valid)")
        }
        for invalid in ["01", "+1", ".5", "1.", "1e", "-", "--1", "1e+", "0x10", "1-2", "tru", "nulll"] {
            #expect(CanonicalJSON.canonical(invalid) == nil, "\(invalid)")
        }
    }

    @Test("keys sorted by their bytes, escapes resolved and written again, whitespace dropped")
    func canonicalForm() {
        #expect(CanonicalJSON.canonical(#" { "b" : [ 1 , "\u00e9\/" ] , "a" : { "é": null, "Z": "\ud83c\udf89" } } "#)
            == #"{"a":{"Z":"🎉","é":null},"b":[1,"é/"]}"#)
        #expect(CanonicalJSON.canonical(#"["\u0001\u001F\"\\\b\f\n\r\t"]"#) == #"["\u0001\u001f\"\\\b\f\n\r\t"]"#)
        #expect(CanonicalJSON.canonical(#"["\u00C9\u00e9\uD83C\uDF89"]"#) == #"["Éé🎉"]"#)
        for invalid in [#"["\ud83c"]"#, #"{"a" 1}"#, #"[1,]"#, #""abc"#, #"["\x"]"#, "[1] 2",
                        #"["\u+041"]"#, #"["\u 041"]"#, #"["\u00g1"]"#, #"["\u004"]"#] {
            #expect(CanonicalJSON.canonical(invalid) == nil, "\(invalid)")
        }
    }

    @Test("the changes read as JSONDecoder reads them")
    func changesAsDecoded() throws {
        let texts = [
            "[]",
            #"[{"new": "b", "old": "a", "field": "state"}]"#,
            #"[{"field": "price", "old": null, "new": 1.0}, {"field": "n", "new": 1e2}, {"field": "x", "old": 1.5}]"#,
            #"[{"field": "big", "new": 12345678901234567890}, {"field": "max", "new": 9223372036854775807}]"#,
            #"[{"field": "s", "new": "\u0001 \" \\ \/ \ud83c\udf89 é"}, {"field": "", "extra": [1, {"a": null}]}]"#,
            #"[{"field": "l", "new": [{"locale": "en-US", "name": "Gold"}, null, true, false], "old": {"b": {}, "a": []}}]"#,
        ]
        for text in texts {
            let decoded = try JSONDecoder().decode([FieldChange].self, from: Data(text.utf8))
            #expect(FieldChange.list(fromJSON: text) == decoded, "\(text)")
        }
        for unlike in [#"{}"#, #"[1]"#, #"[{"old": 1}]"#, #"[{"field": 1}]"#, #"[{"field": "f", "new": 1e400}]"#, "[", ""] {
            #expect((try? JSONDecoder().decode([FieldChange].self, from: Data(unlike.utf8))) == nil, "\(unlike)")
            #expect(FieldChange.list(fromJSON: unlike) == nil, "\(unlike)")
        }
    }
}
