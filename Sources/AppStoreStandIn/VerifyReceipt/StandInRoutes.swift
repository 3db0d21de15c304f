import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import PurchaseCore

/// The request context of the stand-in's routes: it keeps the connection, so that an outage can drop it.
public struct StandInRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's connection.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Receipts are rarely over 100 KB; orders of a thousand purchases stay far below this.
    public var maxUploadSize: Int { 1 << 20 }
}

/// The stand-in's HTTP routes.
///
/// | route | what |
/// |---|---|
/// | `POST /verifyReceipt` | production's verifyReceipt |
/// | `POST /sandbox/verifyReceipt` | the sandbox's verifyReceipt |
/// | `POST /standin/receipts` | issues a receipt (body: ``ReceiptOrder``; answer: ``IssuedReceipt``) |
/// | `GET`, `POST /standin/control` | the behaviour; a change (body: ``BehaviourChange``) |
/// | `PUT`, `DELETE /standin/shared-secrets/{bundleId}` | the app's shared secret (`{"sharedSecret": "…"}`) to check, or none |
/// | `GET`, `DELETE /standin/verifications` | the counts (``VerificationCounts/Summary``); forget them |
/// | `GET /standin/verifications/{id}` | one receipt's counts |
/// | `GET /health` | 200 when serving |
public enum StandInRoutes {
    /// Every route, answering from `store`.
    public static func router(for store: StandInAppStore) -> Router<StandInRequestContext> {
        let router = Router(context: StandInRequestContext.self)
        router.post("verifyReceipt") { request, context in
            try await verifyReceipt(at: .production, request: request, context: context, store: store)
        }
        router.post("sandbox/verifyReceipt") { request, context in
            try await verifyReceipt(at: .sandbox, request: request, context: context, store: store)
        }
        // Apple answers 21000 to a request that is not a POST.
        router.get("verifyReceipt") { _, _ in try json(VerifyReceiptResponse(status: .unreadableRequest)) }
        router.get("sandbox/verifyReceipt") { _, _ in try json(VerifyReceiptResponse(status: .unreadableRequest)) }

        router.post("standin/receipts") { request, context in
            let order = try await decode(ReceiptOrder.self, from: request, context: context)
            let issued: IssuedReceipt
            do { issued = try store.issue(order) } catch { throw HTTPError(.badRequest, message: "\(error)") }
            return try json(issued, status: .created)
        }
        router.get("standin/control") { _, _ in try json(store.behaviour) }
        router.post("standin/control") { request, context in
            try json(store.change(try await decode(BehaviourChange.self, from: request, context: context)))
        }
        router.put("standin/shared-secrets/:bundleId") { request, context in
            let bundleId = try context.parameters.require("bundleId")
            let body = try await decode(SharedSecretBody.self, from: request, context: context)
            store.setSharedSecret(AppStoreSharedSecret(body.sharedSecret), for: bundleId)
            return Response(status: .noContent)
        }
        router.delete("standin/shared-secrets/:bundleId") { _, context in
            store.setSharedSecret(nil, for: try context.parameters.require("bundleId"))
            return Response(status: .noContent)
        }
        router.get("standin/verifications") { _, _ in try json(store.counts.summary()) }
        router.delete("standin/verifications") { _, _ in
            store.counts.reset()
            return Response(status: .noContent)
        }
        router.get("standin/verifications/:id") { _, context in
            guard let id = UUID(uuidString: try context.parameters.require("id")) else {
                throw HTTPError(.badRequest, message: "id must be a receipt's UUID")
            }
            return try json(store.counts.receipt(id))
        }
        router.get("health") { _, _ in Response(status: .ok) }
        return router
    }

    struct SharedSecretBody: Decodable {
        let sharedSecret: String
    }

    static func verifyReceipt(at endpoint: VerifyReceiptEndpoint, request: Request, context: StandInRequestContext,
                              store: StandInAppStore) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        switch await store.verifyReceipt(at: endpoint, body: Data(buffer: body)) {
        case .answered(let response):
            return try json(response)
        case .unavailable:
            return Response(status: .serviceUnavailable)
        case .dropped:
            // Closing the connection under the request: the client sees it end without an answer.
            context.channel.close(promise: nil)
            return Response(status: .serviceUnavailable)
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request,
                                         context: StandInRequestContext) async throws -> Value {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        do {
            return try JSONDecoder().decode(type, from: Data(buffer: body))
        } catch {
            throw HTTPError(.badRequest, message: "the body is not a valid \(type): \(error)")
        }
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }
}
