import CatalogAPI
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Testing

/// The server's own logs, as an operator collects them: JSON lines that carry the request id a client was
/// given in `X-Request-Id`, and never a key's token, whatever the request.
@Suite("Server logs")
struct LogTests {
    @Test("JSON log lines carry each request's id; no token or key secret is ever logged")
    func requestIDsAndNoSecrets() async throws {
        let url = try await TestDatabase.forSuite("logs")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let server = try await ServerProcess(databaseURL: service, migrationURL: url)
        let caller = ServiceCaller(server.baseURL)
        let bogus = KeyToken.generate().text
        var requestIDs: [String] = []
        func note(_ answer: Answer) -> Answer {
            if let id = answer.headers.first(name: "X-Request-Id") { requestIDs.append(id) }
            return answer
        }

        // A key in good standing, the caller's own request id, a bad key, a malformed header, and a key
        // created over the API whose answer carries the new token.
        #expect(note(try await caller.call(.GET, "/v1/me", key: admin, headers: [("X-Request-Id", "client-id-1")]))
            .headers.first(name: "X-Request-Id") == "client-id-1")
        #expect(note(try await caller.call(.GET, "/v1/apps", key: admin)).status == 200)
        #expect(note(try await caller.call(.GET, "/v1/apps", key: bogus)).status == 401)
        #expect(note(try await caller.call(.GET, "/v1/apps", headers: [("Authorization", "Basic \(bogus)")])).status == 401)
        let created = note(try await caller.call(.POST, "/v1/keys", key: admin, json: #"{"role":"auditor","name":"logged"}"#))
        let token = try caller.decode(Components.Schemas.CreatedKey.self, from: created).token
        #expect(note(try await caller.call(.GET, "/v1/me", key: token)).status == 200)
        #expect(note(try await caller.call(.DELETE, "/v1/keys/\(UUID())", key: token)).status == 403)
        #expect(note(try await caller.call(.GET, "/v1/apps/com.none/products/none", key: admin)).status == 404)
        #expect(requestIDs.count == 8 && Set(requestIDs).count == 8)

        server.send(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let lines = server.log.split(separator: "\n").map(String.init)
        // Every line is a JSON object with the standard fields.
        let records = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(records.count == lines.count, "lines that are not JSON: \(lines.filter { !$0.hasPrefix("{") })")
        #expect(records.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        // Each request is logged with the id its answer carried.
        let logged = Set(records.filter { $0["message"] as? String == "request" }.compactMap { $0["requestId"] as? String })
        #expect(Set(requestIDs).isSubset(of: logged), "not logged: \(Set(requestIDs).subtracting(logged))")
        // No token, nor any part of one that identifies it, nor its stored hash.
        for secret in [admin, bogus, token] {
            let body = String(secret.dropFirst(KeyToken.prefix.count))
            let hash = KeyToken(text: secret).hash.map { String(format: "%02x", $0) }.joined()
            #expect(!server.log.contains(body.prefix(16)) && !server.log.contains(hash.prefix(16)),
                    "a secret was logged")
        }
        print("logs: \(lines.count) JSON lines, \(logged.count) request ids logged, no token found in them")
    }

    @Test("the commands print what they make and log nothing above info: migrate, then create-key three times")
    func commandsLogNoWarning() async throws {
        let url = try await TestDatabase.empty("quiet_commands")
        func warnings(_ errors: String) -> [String] {
            errors.split(separator: "\n").map(String.init).filter { line in
                let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return !["trace", "debug", "info", "notice"].contains(record?["level"] as? String ?? "unreadable")
            }
        }
        let environment = ["LOG_LEVEL": "info", "LOG_FORMAT": "json"]
        let migrate = try await ServerProcess.command(["migrate"], databaseURL: url, environment: environment)
        #expect(migrate.status == 0, "\(migrate.errors)")
        #expect(warnings(migrate.errors).isEmpty, "\(migrate.errors)")
        // A command leases a connection as soon as it starts: PostgresNIO warns when that comes before the
        // client's run() has begun, which a command's first lease used to.
        for attempt in 1...3 {
            let created = try await ServerProcess.command(
                ["create-key", "--role", "auditor", "--name", "quiet \(attempt)"], databaseURL: url,
                environment: environment)
            #expect(created.status == 0, "\(created.errors)")
            #expect(created.output.hasPrefix(KeyToken.prefix) && created.output.split(separator: "\n").count == 1)
            #expect(warnings(created.errors).isEmpty, "\(created.errors)")
        }
    }
}
