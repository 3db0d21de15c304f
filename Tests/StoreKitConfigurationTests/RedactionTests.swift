import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Private key redaction")
struct RedactionTests {
    private let secret = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgSECRETSECRET"

    private var text: String {
        #"""
        {"identifier": "1A2B3C4D", "nonRenewingSubscriptions": [], "products": [], "settings": {},
         "subscriptionGroups": [],
         "subscriptionOffersKeyPair": {"id": "5509FCF1", "privateKey": "\#(secret)"},
         "version": {"major": 1, "minor": 1}}
        """#
    }

    private func dumped(_ value: some Any) -> String {
        var output = ""
        dump(value, to: &output)
        return output
    }

    @Test func keyPairNeverPrintsItsPrivateKey() throws {
        let configuration = try StoreKitConfiguration(data: Data(text.utf8))
        let keyPair = try #require(configuration.subscriptionOffersKeyPair)
        #expect(keyPair.privateKey == secret)
        #expect(keyPair.description == #"StoreKitOffersKeyPair(id: "5509FCF1", privateKey: <redacted>)"#)

        let renderings = [
            keyPair.description, keyPair.debugDescription, "\(keyPair)", String(reflecting: keyPair), dumped(keyPair),
            String(describing: configuration), String(reflecting: configuration), dumped(configuration),
        ]
        for rendering in renderings {
            #expect(!rendering.contains(secret))
            #expect(!rendering.contains("SECRET"))
        }
        #expect(String(describing: configuration).contains("5509FCF1"))
    }

    @Test func rawJSONNeverPrintsAPrivateKey() throws {
        let json = try StoreKitJSON(parsing: text)
        for rendering in [json.description, json.debugDescription, String(reflecting: json), dumped(json)] {
            #expect(!rendering.contains("SECRET"))
        }
        #expect(json.description.contains(#""privateKey":"<redacted>""#))
        // Redaction applies wherever the member occurs, such as a misspelt key pair kept as an unknown key.
        let nested = try StoreKitJSON(parsing: #"{"subscriptionOfferKeyPair": {"privateKey": "\#(secret)"}}"#)
        #expect(!nested.description.contains("SECRET"))
    }

    @Test func errorsNeverQuoteThePrivateKey() throws {
        let invalid = text.replacingOccurrences(of: #""id": "5509FCF1""#, with: #""id": 5509"#)
            .replacingOccurrences(of: #""products": []"#, with: #""products": {}"#)
        let error = #expect(throws: StoreKitConfigurationError.self) {
            try StoreKitConfiguration(data: Data(invalid.utf8))
        }
        #expect(error?.issues.count == 2)
        #expect(error.map { !String(describing: $0).contains("SECRET") } == true)

        let broken = text.replacingOccurrences(of: "SECRETSECRET", with: "SECRET\\qSECRET")
        let syntax = #expect(throws: StoreKitConfigurationError.self) {
            try StoreKitConfiguration(data: Data(broken.utf8))
        }
        #expect(syntax.map { !String(describing: $0).contains("SECRET") } == true)
    }

    @Test func fileOutputKeepsTheKey() throws {
        let configuration = try StoreKitConfiguration(data: Data(text.utf8))
        #expect(configuration.fileText().contains(#""privateKey" : "\#(secret)""#))
    }
}
