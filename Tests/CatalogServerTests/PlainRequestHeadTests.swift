@testable import CatalogServer
import Testing

/// Which request heads the identifier route's wire handler reads itself (the rest go to NIO's decoder).
@Suite("Plain request heads")
struct PlainRequestHeadTests {
    private func recognize(_ text: String) -> PlainRequestHead? {
        Array(text.utf8).withUnsafeBytes { PlainRequestHead($0) }
    }

    @Test("GET and HEAD with ordinary headers are read: target, If-None-Match, Connection")
    func recognized() throws {
        let get = try #require(recognize("GET /v1/apps/com.a/product-identifiers?type=CONSUMABLE HTTP/1.1\r\n"
            + "Host: example.com\r\nUser-Agent: App/1.0 CFNetwork/1490 Darwin/23.0\r\nAccept: */*\r\n"
            + "Accept-Encoding: gzip, deflate, br\r\nIf-None-Match:  \"abc\" \t\r\n\r\n"))
        #expect(!get.isHead && get.target == "/v1/apps/com.a/product-identifiers?type=CONSUMABLE")
        #expect(get.ifNoneMatch == "\"abc\"" && !get.close)
        let head = try #require(recognize("HEAD /x HTTP/1.1\r\nconnection: CLOSE\r\nif-none-match: \"a\"\r\n"
            + "IF-NONE-MATCH: W/\"b\"\r\nConnection: keep-alive\r\n\r\n"))
        #expect(head.isHead && head.target == "/x" && head.ifNoneMatch == "\"a\", W/\"b\"" && head.close)
        #expect(recognize("GET / HTTP/1.1\r\n\r\n") != nil)
        #expect(recognize("GET /x HTTP/1.1\r\nX-Empty:\r\n\r\n") != nil)
    }

    @Test("anything beyond the plainest HTTP/1.1 is left to the decoder",
          arguments: [
              "POST /x HTTP/1.1\r\n\r\n", "get /x HTTP/1.1\r\n\r\n", "GET  /x HTTP/1.1\r\n\r\n",
              "GET /x HTTP/1.0\r\n\r\n", "GET /x HTTP/2\r\n\r\n", "GET /x\r\n\r\n", "GET x HTTP/1.1\r\n\r\n",
              "GET http://a/x HTTP/1.1\r\n\r\n", "GET /a%2Fb HTTP/1.1\r\n\r\n", "GET /a#b HTTP/1.1\r\n\r\n",
              "GET /a?b&c HTTP/1.1\r\n\r\n", "GET /a+b HTTP/1.1\r\n\r\n",
              "GET /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "GET /x HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n",
              "GET /x HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", "GET /x HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
              "GET /x HTTP/1.1\r\nConnection: Upgrade\r\n\r\n", "GET /x HTTP/1.1\r\nConnection: keep-alive, TE\r\n\r\n",
              "GET /x HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", "GET /x HTTP/1.1\r\nHost : a\r\n\r\n",
              "GET /x HTTP/1.1\r\n: a\r\n\r\n", "GET /x HTTP/1.1\r\nHo(st: a\r\n\r\n",
              "GET /x HTTP/1.1\r\nHost: a\nAccept: b\r\n\r\n", "GET /x HTTP/1.1\nHost: a\r\n\r\n",
              "GET /x HTTP/1.1\r\nHost: a\rb\r\n\r\n", "GET /x HTTP/1.1\r\nHost: caf\u{E9}\r\n\r\n",
              "GET /x HTTP/1.1\r\nHost: a\u{0}b\r\n\r\n", "GET /x HTTP/1.1\r\nHost: a\r\n\r\nGET",
          ])
    func leftToTheDecoder(_ text: String) {
        #expect(recognize(text) == nil)
    }

    @Test("a head's length is found at its blank line, within 8 KiB")
    func length() {
        func length(_ text: String) -> Int? { Array(text.utf8).withUnsafeBytes { PlainRequestHead.length(in: $0) } }
        #expect(length("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n") == 18)
        #expect(length("GET / HTTP/1.1\r\nHost: a\r\n") == nil)
        #expect(length("GET / HTTP/1.1\n\n") == nil)
        #expect(length("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 8_200) + "\r\n\r\n") == nil)
    }
}
