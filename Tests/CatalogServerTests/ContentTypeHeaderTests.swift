@testable import CatalogServer
import Testing

@Suite("A request's media type")
struct ContentTypeHeaderTests {
    @Test("JSON is found in any case, with parameters and suffixes", arguments: [
        ("application/json", true), ("APPLICATION/JSON", true), ("application/problem+json", true),
        ("application/json; charset=utf-8", true), ("application/merge-patch+Json", true),
        ("application/jjson", true), ("application/jsoN", true),
        ("application/octet-stream", false), ("text/plain", false), ("application/jso", false),
        ("application/js-on", false), ("", false),
    ])
    func json(contentType: String, isJSON: Bool) {
        #expect(ContentTypeHeader.isJSON(contentType) == isJSON)
    }

    @Test("No content type is not JSON and not a file")
    func absent() {
        #expect(!ContentTypeHeader.isJSON(nil))
        #expect(!BodyLimit.isFile(nil))
    }

    @Test("A file's media type is matched whole, in any case, parameters and blanks aside", arguments: [
        ("application/octet-stream", true), ("Application/Octet-Stream", true), (" application/yaml ; q=1", true),
        ("\tapplication/YAML", true), ("application/yaml;charset=utf-8", true),
        ("application/octet-streams", false), ("application/json", false), ("application/yam", false),
        ("x-application/yaml", false), ("", false), ("  ", false), (";", false),
    ])
    func file(contentType: String, isFile: Bool) {
        #expect(BodyLimit.isFile(contentType) == isFile)
    }
}
