import PurchaseCore
import Testing

/// DESIGN.md's status table, code by code.
@Suite struct VerifyReceiptStatusTests {
    @Test(arguments: [0, 21006])
    func validCodes(code: Int) {
        #expect(VerifyReceiptStatus(code).disposition == .valid)
    }

    @Test func environmentCodesPointAtTheOtherEndpoint() {
        #expect(VerifyReceiptStatus(21007).disposition == .askSandbox)
        #expect(VerifyReceiptStatus(21008).disposition == .askProduction)
    }

    @Test(arguments: [21000, 21003, 21004, 21010])
    func invalidCodes(code: Int) {
        #expect(VerifyReceiptStatus(code).disposition == .invalid)
    }

    @Test func malformedDataIsItsOwnCase() {
        #expect(VerifyReceiptStatus(21002).disposition == .malformed)
    }

    @Test(arguments: [21005, 21009, 21100, 21150, 21199, 21001, 21011, 21200, 1, -1])
    func temporaryCodes(code: Int) {
        #expect(VerifyReceiptStatus(code).disposition == .temporary)
    }

    @Test func everyCodeHasApplesMeaning() {
        #expect(VerifyReceiptStatus(21004).meaning.contains("shared secret"))
        #expect(VerifyReceiptStatus(21007).meaning.contains("test environment"))
        #expect(VerifyReceiptStatus(21150).meaning == "Internal data access error.")
        #expect(VerifyReceiptStatus(29999).meaning == "A status the App Store does not document.")
        #expect(VerifyReceiptStatus(21010).description.hasPrefix("21010 ("))
    }
}
