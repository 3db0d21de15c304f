import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// The auditors' record in the database: append-only for the service's role, tamper-evident for everyone.
@Suite("History chain")
struct HistoryChainTests {
    @Test("the service's role may not UPDATE, DELETE or TRUNCATE history, nor touch the chain heads or triggers",
          arguments: [
              "UPDATE history_events SET reason = 'rewritten'",
              "DELETE FROM history_events",
              "TRUNCATE history_events",
              "ALTER TABLE history_events DISABLE TRIGGER history_events_append_only",
              "DROP TRIGGER history_events_append_only ON history_events",
              "UPDATE history_chains SET last_seq = 0",
              "INSERT INTO history_chains VALUES ('forged', 0, '\\x00')",
              "UPDATE product_id_reservations SET product_id = 'x'",
              "UPDATE review_transitions SET to_state = 'READY_FOR_SALE'",
          ])
    func serviceRoleCannotRewrite(statement: String) async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        try await TestDatabase.withDatabase(url) { database in
            _ = try await StoreFixtures.app(database, "com.chain.privileges.\(abs(statement.hashValue))")
        }
        let service = try await TestDatabase.serviceURL(for: url)
        try await TestDatabase.withDatabase(service) { database in
            do {
                try await StoreFixtures.run(statement, in: database)
                Issue.record("the service's role could run: \(statement)")
            } catch let error as PSQLError {
                // 42501 insufficient_privilege; 42809/42P01 would mean the statement itself was wrong.
                #expect(error.serverInfo?[.sqlState] == "42501", "\(String(reflecting: error))")
            }
        }
    }

    @Test("the Swift canonical form is the database's, for every kind of event and awkward text")
    func canonicalFormsAgree() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.chain.canonical")
            var product = try await StoreFixtures.product(database, in: app, id: "odd")
            let awkward = "quote\" backslash\\ tab\t newline\n bell\u{7} del\u{7F} é 金 🎉 \u{1F}"
            let change = try #require(try product.applying(
                ProductEdit(referenceName: "Renamed", reviewNote: awkward), in: app, at: Date()))
            #expect(try await database.products.save(change.product, replacing: product, cause: "edit", event: HistoryRecord(
                kind: .edited, bundleID: app.bundleID, productID: "odd", productVersion: change.product.version,
                actor: Actor(keyID: UUID(), name: awkward, role: .developer), reason: awkward, changes: change.changes,
                requestID: "req-1")))
            product = change.product
            _ = try await StoreFixtures.perform(.approve, on: product, in: app, database)
            let stored = try await StoreFixtures.values("""
                SELECT history_canonical(h) FROM history_events h WHERE chain = 'com.chain.canonical' ORDER BY chain_seq
                """, as: String.self, in: database)
            var events: [HistoryEvent] = []
            var cursor: Int64?
            repeat {
                let page = try await database.history.forProduct(app.bundleID, "odd", after: cursor, limit: 100)
                events += page
                cursor = page.count == 100 ? page.last?.sequence : nil
            } while cursor != nil
            #expect(events.count == 3)
            #expect(events.map(\.canonicalJSON) == Array(stored.dropFirst()))
        }
    }

    @Test("history_append and history_append_all write an event's fields to the same columns, a list in its order")
    func appendsAgree() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        try await TestDatabase.withDatabase(url) { database in
            _ = try await StoreFixtures.app(database, "com.chain.append")
            // Every field an event may carry, each with a value.
            let event = """
                {"app": "com.chain.append", "productId": "p1", "productVersion": 3, "kind": "action", "action": "submit",
                 "fromState": "APPROVED_BY_DEVELOPER", "toState": "WAITING_FOR_REVIEW",
                 "actor": {"keyId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "name": "Ann", "role": "developer"},
                 "reason": "ready", "changes": [{"field": "state", "old": "a", "new": "b"}], "requestId": "req-7"}
                """
            let other = #"{"app": "com.chain.append", "kind": "app_created", "actor": {"name": "Bob"}}"#
            try await StoreFixtures.run("SELECT history_append('\(event)'::jsonb)", in: database)
            try await StoreFixtures.run("""
                SELECT history_append_all(ARRAY['\(event)'::jsonb, '\(other)'::jsonb, '\(event)'::jsonb])
                """, in: database)
            let rows = try await StoreFixtures.values("""
                SELECT concat_ws(' | ', app, product_id, product_version, kind, action, from_state, to_state,
                                 actor_key_id, actor_name, actor_role, reason, changes::text, request_id)
                FROM history_events WHERE chain = 'com.chain.append' AND (kind <> 'app_created' OR actor_name = 'Bob')
                ORDER BY sequence
                """, as: String.self, in: database)
            let expected = "com.chain.append | p1 | 3 | action | submit | APPROVED_BY_DEVELOPER | WAITING_FOR_REVIEW | "
                + "3f2504e0-4f89-11d3-9a0c-0305e82c3301 | Ann | developer | ready | "
                + #"[{"new": "b", "old": "a", "field": "state"}] | req-7"#
            #expect(rows == [expected, expected, "com.chain.append | app_created | Bob | []", expected])
            #expect(try await database.history.verify(chain: "com.chain.append").verified)
        }
    }

    @Test("iap_canonical_json writes what migration 0001's version wrote, and what Swift writes, for any JSON")
    func canonicalFunctionKeepsItsOutput() async throws {
        // 0001's definition under another name is the reference: every hash written before the faster version
        // (0006) must still verify, and every hash written after it must verify in Swift.
        let reference = try StoreFixtures.function("iap_canonical_json", ofMigration: 1, renamedTo: "reference_canonical_json")
            .replacingOccurrences(of: "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION")
        var random = SeededGenerator(seed: 2026)
        let values = [
            "null", "true", "1.50", "-0", "1e3", "[]", "{}", "[[], {}, [[]]]", #""quote\" backslash\\ é 金 🎉 \u0001""#,
            #"{"b": 1, "a": [1, {"zz": null, "y": "x, \"y\": z"}], "": {}, "é": [], "aa": true, "Z": {"x": "y"}}"#,
            "{" + (1...40).map { "\"\(String(repeating: "k", count: 41 - $0))\": \($0)" }.joined(separator: ", ") + "}",
            // An event's changes (0028 writes objects of "field", "new" and "old" with scalar values without
            // sorting their keys), and objects just outside that shape.
            #"[{"new": "é \"x\"", "old": null, "field": "reviewNote"}, {"new": 1}, {"old": false, "field": ""}]"#,
            #"[{"field": "f", "old": [1, 2]}, {"field": "f", "new": {"b": 1, "a": 2}}, {"field": "f", "new": 1, "x": 2}]"#,
            #"{"field": "f", "new": 1, "old": 2, "": 3}"#, #"{"fiel": 1, "new": 2}"#,
            // Lists of changes (0036 writes a list of up to 100 of them in one pass, then keeps the text only if it
            // reads back as the list and no value in it is an object or array), and lists just outside that shape:
            // elements that are not objects, other keys, nested values, strings that look like them.
            #"[{"new": "2562982500069681", "field": "transactionId"}, {"new": 1, "field": "quantity"}, {"new": false, "field": "catalogMismatch"}]"#,
            #"[{"new": null, "old": "x", "field": "a"}, {"old": 2.50, "field": "price"}, {"field": "f"}, {}]"#,
            #"[{"field": "a", "new": 1}, 1]"#, #"["x"]"#, "[null]", "[[]]", "[{}]", #"[{"field": "a"}, {}, {}]"#,
            #"[{"field": "a", "new": 1, "z": 2}]"#, #"[{"field": "a", "new": 1, "": 2}]"#, #"[{"fiel": "a", "new": 1}]"#,
            #"[{"field": "a", "new": {"b": 1, "a": 2}}]"#, #"[{"field": "a", "old": [2, 1]}]"#, #"[{"field": {}}]"#,
            #"[{"field": "x\":{y", "new": "\":[", "old": "{}"}, {"field": "\"new\":1", "new": "é 🎉 \u0001"}]"#,
            "[" + (0..<100).map { #"{"new": \#($0), "field": "f\#($0)"}"# }.joined(separator: ", ") + "]",
            "[" + (0..<101).map { #"{"new": \#($0), "field": "f\#($0)"}"# }.joined(separator: ", ") + "]",
        ] + (0..<300).map { _ in random.json(depth: 4) } + (0..<300).map { _ in random.changes() }
        let url = try await TestDatabase.forSuite("history_chain")
        try await TestDatabase.withDatabase(url) { database in
            try await StoreFixtures.run(reference, in: database)
            let all = "[" + values.joined(separator: ", ") + "]"
            let rows = try await database.client.query("""
                SELECT iap_canonical_json(x), reference_canonical_json(x), x::text FROM jsonb_array_elements(\(all)::jsonb) AS x
                """)
            var count = 0
            for try await (canonical, expected, stored) in rows.decode((String, String, String).self) {
                count += 1
                #expect(canonical == expected)
                #expect(CanonicalJSON.canonical(stored) == canonical)
            }
            #expect(count == values.count)
        }
    }

    @Test("an event's changes, as PostgreSQL writes them, read as JSONDecoder reads them")
    func changesReadAsDecoded() async throws {
        var random = SeededGenerator(seed: 1125)
        let lists = (0..<200).map { _ in
            "[" + (0..<random.below(14)).map { _ in
                "{\"field\": \(random.string())" + (random.below(4) > 0 ? ", \"old\": \(random.json(depth: 2))" : "")
                    + (random.below(4) > 0 ? ", \"new\": \(random.json(depth: 2))" : "")
                    + (random.below(8) == 0 ? ", \"other\": \(random.json(depth: 1))" : "") + "}"
            }.joined(separator: ", ") + "]"
        }
        let url = try await TestDatabase.forSuite("history_chain")
        try await TestDatabase.withDatabase(url) { database in
            let rows = try await database.client.query("""
                SELECT x::text FROM jsonb_array_elements(\("[" + lists.joined(separator: ", ") + "]")::jsonb) AS x
                """)
            var count = 0
            for try await stored in rows.decode(String.self) {
                count += 1
                let decoded = try JSONDecoder().decode([FieldChange].self, from: Data(stored.utf8))
                #expect(FieldChange.list(fromJSON: stored) == decoded, "\(stored)")
            }
            #expect(count == lists.count)
        }
    }

    /// The chain's verification, the same whether its events are checked one, two or all at a time.
    private func verified(_ chain: String, _ database: Database) async throws -> ChainVerification {
        let whole = try await database.history.verify(chain: chain)
        for eventsPerCheck in [1, 2] {
            #expect(try await database.history.verify(chain: chain, eventsPerCheck: eventsPerCheck) == whole)
        }
        return whole
    }

    @Test("verification passes on an untouched chain and names the exact row a superuser altered")
    func tamperingDetected() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        let app = "com.chain.tampered"
        let events = try await TestDatabase.withDatabase(url) { database in
            let created = try await StoreFixtures.app(database, app)
            var product = try await StoreFixtures.product(database, in: created)
            for action in [ReviewAction.approve, .submit, .startReview, .accept] {
                product = try await StoreFixtures.perform(action, on: product, in: created, database)
            }
            let verification = try await verified(app, database)
            #expect(verification.verified && verification.events == 6)
            return try await StoreFixtures.values("SELECT sequence FROM history_events WHERE chain = '\(app)' ORDER BY chain_seq",
                                                  as: Int64.self, in: database)
        }
        // The superuser can switch the triggers off; the chain still tells.
        let target = events[3]
        try await TestDatabase.execute("""
            ALTER TABLE history_events DISABLE TRIGGER history_events_append_only;
            """, in: url)
        try await TestDatabase.execute("UPDATE history_events SET reason = 'nothing to see' WHERE sequence = \(target)", in: url)
        try await TestDatabase.withDatabase(url) { database in
            let verification = try await verified(app, database)
            #expect(verification.firstBrokenLink?.sequence == target)
            #expect(verification.firstBrokenLink?.chainSequence == 4)
            #expect(verification.firstBrokenLink?.problem == .hashMismatch)
        }
        // Recomputing that row's hash only moves the break to the next row.
        try await TestDatabase.execute("""
            UPDATE history_events SET hash = sha256(previous_hash || convert_to(history_canonical(history_events), 'UTF8'))
            WHERE sequence = \(target)
            """, in: url)
        try await TestDatabase.withDatabase(url) { database in
            let verification = try await verified(app, database)
            #expect(verification.firstBrokenLink?.sequence == events[4])
            #expect(verification.firstBrokenLink?.problem == .previousHashMismatch)
        }
        // Removing the last event is seen too: the chain head points past it.
        try await TestDatabase.execute("DELETE FROM history_events WHERE sequence = \(events[5])", in: url)
        try await TestDatabase.execute("UPDATE history_events SET reason = NULL WHERE sequence = \(target)", in: url)
        try await TestDatabase.execute("""
            UPDATE history_events SET hash = sha256(previous_hash || convert_to(history_canonical(history_events), 'UTF8'))
            WHERE sequence = \(target)
            """, in: url)
        try await TestDatabase.withDatabase(url) { database in
            let verification = try await verified(app, database)
            #expect(verification.firstBrokenLink?.problem == .missingEvent)
            #expect(verification.firstBrokenLink?.chainSequence == 6)
        }
        try await TestDatabase.execute("ALTER TABLE history_events ENABLE TRIGGER history_events_append_only", in: url)
    }

    @Test("an event finds its chain head through the primary key, however many apps there are")
    func chainHeadIsOneIndexLookup() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        // history_link compares with NEW.chain, a `COLLATE "C"` value: the key must have that collation for
        // its index to answer. With sequential scans priced out, a plan without the index shows it.
        let plan = try await TestDatabase.withClient(url, maximumConnections: 1) { client in
            try await client.withConnection { connection in
                _ = try await connection.query("SET enable_seqscan = off", logger: connection.logger).collect()
                let rows = try await connection.query(
                    #"EXPLAIN SELECT * FROM history_chains WHERE chain = ('com.example' COLLATE "C") FOR UPDATE"#,
                    logger: connection.logger
                ).collect()
                return try rows.map { try $0.decode(String.self) }.joined(separator: "\n")
            }
        }
        #expect(plan.contains("Index Scan using history_chains_pkey"), "\(plan)")
    }

    @Test("an event's canonical form is one inlined expression, with no SQL function parsed and planned per event")
    func canonicalFormIsInlined() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        // A SQL function that is not inlined is parsed and planned at every call; the plan names it when so.
        let plan = try await TestDatabase.withDatabase(url) { database in
            try await StoreFixtures.values(
                "EXPLAIN VERBOSE SELECT history_canonical(h) FROM history_events h", as: String.self, in: database
            ).joined(separator: "\n")
        }
        #expect(plan.contains("to_json("), "\(plan)")
        #expect(!plan.contains("iap_json_text("), "\(plan)")
        #expect(!plan.contains("history_canonical("), "\(plan)")
    }

    @Test("concurrent writers to one app never fork its chain")
    func concurrentWritersKeepOneChain() async throws {
        let url = try await TestDatabase.forSuite("history_chain")
        let app = "com.chain.concurrent"
        try await TestDatabase.withDatabase(url) { database in
            let created = try await StoreFixtures.app(database, app)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        var product = try await StoreFixtures.product(database, in: created, id: "p\(index)")
                        product = try await StoreFixtures.perform(.approve, on: product, in: created, database)
                        _ = try await StoreFixtures.perform(.submit, on: product, in: created, database)
                    }
                }
                try await group.waitForAll()
            }
            let verification = try await database.history.verify(chain: app)
            #expect(verification.verified)
            #expect(verification.events == 1 + 40 * 3)
            let positions = try await StoreFixtures.values("""
                SELECT count(DISTINCT chain_seq) = count(*) AND max(chain_seq) = count(*)
                       AND bool_and(sequence_order = chain_seq)
                FROM (SELECT chain_seq, row_number() OVER (ORDER BY sequence) AS sequence_order
                      FROM history_events WHERE chain = '\(app)') AS c
                """, as: Bool.self, in: database)
            #expect(positions == [true])
        }
    }
}

/// Random JSON texts for comparing canonical forms: keys of every length and awkward characters, nested values.
private extension SeededGenerator {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A JSON string literal of up to 6 characters, escapes included.
    mutating func string() -> String {
        let pieces = ["a", "b", "Z", "_", "é", "金", "🎉", " ", ",", ":", "\\\"", "\\\\", "\\n", "\\u0001", "\\u001f", "{", "]"]
        return "\"" + (0..<below(7)).map { _ in pieces[below(pieces.count)] }.joined() + "\""
    }

    /// A list of up to 13 changes, about one in six of its elements not a plain one (another JSON value, another
    /// key, a value that may be an object or array, no `field`).
    mutating func changes() -> String {
        "[" + (0..<below(14)).map { _ in
            switch below(24) {
            case 0: return json(depth: 1)
            case 1: return "{\"field\": \(string()), \"new\": \(json(depth: 2)), \(string()): 1}"
            case 2: return "{\"field\": \(string()), \"old\": \(json(depth: 2))}"
            case 3: return "{\"new\": \(json(depth: 0))}"
            default:
                return "{\"field\": \(string())" + (below(3) > 0 ? ", \"new\": \(json(depth: 0))" : "")
                    + (below(3) == 0 ? ", \"old\": \(json(depth: 0))" : "") + "}"
            }
        }.joined(separator: ", ") + "]"
    }

    mutating func json(depth: Int) -> String {
        switch below(depth > 0 ? 8 : 5) {
        case 0: return "null"
        case 1: return below(2) == 0 ? "true" : "false"
        case 2: return ["0", "-1", "2.50", "1234567890.123456", "0.5"][below(5)]
        case 3, 4: return string()
        case 5: return "[" + (0..<below(4)).map { _ in json(depth: depth - 1) }.joined(separator: ", ") + "]"
        case 6 where below(2) == 0:  // some of a change's keys
            return "{" + ["\"field\"", "\"new\"", "\"old\""].filter { _ in below(3) > 0 }
                .map { "\($0): \(json(depth: depth - 1))" }.joined(separator: ", ") + "}"
        default:
            return "{" + (0..<below(6)).map { _ in "\(string()): \(json(depth: depth - 1))" }.joined(separator: ", ") + "}"
        }
    }
}
