import AppStoreStandIn
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PurchaseCore
import Testing

/// The stand-in's own routes, over HTTP: issuing receipts, switching behaviour, counting, Apple's 21000.
@Suite struct StandInRoutesTests {
    func send(_ method: HTTPMethod, _ url: URL, json: String? = nil) async throws -> (status: UInt, body: Data) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, Data(buffer: body))
    }

    @Test func receiptsIssuedByTheRouteVerifyAndAreCounted() async throws {
        let app = bundle()
        try await StandInFixture.run { standIn, _ in
            let order = #"{"bundleId": "\#(app)", "environment": "Sandbox", "products": ["coins.100"]}"#
            let issued = try await send(.POST, standIn.base.appendingPathComponent("standin/receipts"), json: order)
            #expect(issued.status == 201)
            let receipt = try JSONDecoder().decode(IssuedReceipt.self, from: issued.body)
            #expect(receipt.environment == "Sandbox")
            #expect(receipt.transactions.first?.productId == "coins.100")

            let body = #"{"receipt-data": "\#(receipt.receipt)"}"#
            #expect(try await status(.POST, standIn.base.appendingPathComponent("verifyReceipt"), json: body)
                == .sandboxReceipt)
            let atSandbox = try await send(.POST, standIn.base.appendingPathComponent("sandbox/verifyReceipt"),
                                           json: body)
            let answer = try VerifyReceiptResponse.decode(atSandbox.body)
            #expect(answer.status == .valid)
            #expect(answer.environment == "Sandbox")
            #expect(answer.receipt?.bundleId == app)
            #expect(String(decoding: atSandbox.body, as: UTF8.self).contains(#""quantity":"1""#),
                    "numbers as strings, as Apple writes them")

            let counts = try await send(.GET, standIn.base.appendingPathComponent("standin/verifications/\(receipt.id)"))
            let perReceipt = try JSONDecoder().decode(VerificationCounts.PerReceipt.self, from: counts.body)
            #expect(perReceipt.production == 1 && perReceipt.sandbox == 1 && perReceipt.verified == 1)
        }
    }

    @Test func aBadOrderNamesItsField() async throws {
        try await StandInFixture.run { standIn, _ in
            let answer = try await send(.POST, standIn.base.appendingPathComponent("standin/receipts"),
                                        json: #"{"bundleId": "com.example.a", "environment": "Staging"}"#)
            #expect(answer.status == 400)
            #expect(String(decoding: answer.body, as: UTF8.self).contains("environment"))
        }
    }

    @Test func theControlRouteSwitchesLatencyAndOutages() async throws {
        try await StandInFixture.run { standIn, _ in
            let control = standIn.base.appendingPathComponent("standin/control")
            let changed = try await send(.POST, control,
                                         json: #"{"latencyMs": [30, 60], "outage": true, "outageSeconds": 60}"#)
            #expect(changed.status == 200)
            let behaviour = try JSONDecoder.iso8601.decode(StandInBehaviour.self, from: changed.body)
            #expect(behaviour.latencyMs == 30...60)
            #expect(behaviour.outage == .unavailable)
            #expect(behaviour.outageEndsAt != nil)

            let verify = try await send(.POST, standIn.base.appendingPathComponent("verifyReceipt"),
                                        json: #"{"receipt-data": "AAAA"}"#)
            #expect(verify.status == 503)

            _ = try await send(.POST, control, json: #"{"outage": "drop"}"#)
            await #expect(throws: (any Error).self) {
                _ = try await send(.POST, standIn.base.appendingPathComponent("verifyReceipt"),
                                   json: #"{"receipt-data": "AAAA"}"#)
            }
            let back = try await send(.POST, control, json: #"{"outage": false, "latencyMs": 0}"#)
            #expect(try JSONDecoder.iso8601.decode(StandInBehaviour.self, from: back.body).outage == StandInBehaviour.Outage.none,
                    "the control routes answer during a drop outage")
            #expect(try await status(.POST, standIn.base.appendingPathComponent("verifyReceipt"),
                                     json: #"{"receipt-data": "AAAA"}"#) == .malformedReceiptData)

            let bad = try await send(.POST, control, json: #"{"latencyMs": [60, 30]}"#)
            #expect(bad.status == 400)
        }
    }

    /// The status in the answer to `json` sent to `url`.
    func status(_ method: HTTPMethod, _ url: URL, json: String? = nil) async throws -> VerifyReceiptStatus {
        try VerifyReceiptResponse.decode(try await send(method, url, json: json).body).status
    }

    @Test func applesOtherAnswers() async throws {
        try await StandInFixture.run { standIn, _ async throws in
            let url = standIn.base.appendingPathComponent("verifyReceipt")
            #expect(try await status(.GET, url) == .unreadableRequest, "not a POST: 21000")
            #expect(try await status(.POST, url, json: "not json") == .unreadableRequest)
            #expect(try await status(.POST, url, json: #"{"password": "x"}"#) == .malformedReceiptData,
                    "no receipt-data: 21002")
        }
    }

    @Test func sharedSecretsAreSetThroughTheRoute() async throws {
        let app = bundle()
        try await StandInFixture.run { standIn, _ in
            let issued = try standIn.receipt(app)
            let secretURL = standIn.base.appendingPathComponent("standin/shared-secrets/\(app)")
            #expect(try await send(.PUT, secretURL, json: #"{"sharedSecret": "abc"}"#).status == 204)
            let url = standIn.base.appendingPathComponent("verifyReceipt")
            let wrong = #"{"receipt-data": "\#(issued.receipt)", "password": "abd"}"#
            #expect(try await status(.POST, url, json: wrong) == .wrongSharedSecret)
            let control = try await send(.GET, standIn.base.appendingPathComponent("standin/control"))
            #expect(!String(decoding: control.body, as: UTF8.self).contains("abc"))
            #expect(try await send(.DELETE, secretURL).status == 204)
            #expect(try await status(.POST, url, json: wrong) == .valid)
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
