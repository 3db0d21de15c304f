@testable import CatalogServer
import Foundation
import Testing

@Suite("Percent-encoded text read back")
struct PercentDecodingTests {
    @Test("Each %XX is the byte it spells; a malformed escape or bytes that are not UTF-8 are refused", arguments: [
        ("/v1/apps/com.example/purchases", "/v1/apps/com.example/purchases"),
        ("%2Fv1%2Fapps%2Fcom.example%2Fpurchases%2Fsubmissions%2F6b0e", "/v1/apps/com.example/purchases/submissions/6b0e"),
        ("attachment%3B%20filename%3D%22a.storekit%22", "attachment; filename=\"a.storekit\""),
        ("%e2%82%ac and %E2%82%AC", "€ and €"), ("%25", "%"), ("%2525", "%25"), ("", ""),
        ("%", nil), ("%2", nil), ("a%zz", nil), ("%g0", nil), ("%FF", nil), ("%C3", nil), ("%e2%82", nil),
    ] as [(String, String?)])
    func decoded(text: String, expected: String?) {
        #expect(PercentDecoding.decoded(text) == expected)
        // The rule Foundation's `removingPercentEncoding`, which this replaces, follows.
        #expect(text.removingPercentEncoding == expected)
    }
}
