import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// What the database holds whatever the client: raw SQL, as the superuser where it says so, tries to break it.
@Suite("Schema invariants")
struct SchemaInvariantTests {
    @Test("the database's transition table is CatalogCore's table, row for row")
    func transitionTablesAgree() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            var rows = Set<StateChange>()
            let query: PostgresQuery = "SELECT cause, from_state::text, to_state::text, role::text FROM review_transitions"
            for try await (cause, from, to, role) in try await database.client.query(query)
                .decode((String, String, String, String).self) {
                rows.insert(StateChange(cause: cause, from: ReviewState(rawValue: from)!, to: ReviewState(rawValue: to)!,
                                        role: KeyRole(rawValue: role)!))
            }
            #expect(rows == StateChange.all)
        }
    }

    @Test("the database's enum types hold exactly the domain's cases")
    func enumsAgree() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            var labels: [String: [String]] = [:]
            for type in ["review_state", "review_action", "purchase_type", "key_role", "history_kind"] {
                labels[type] = try await StoreFixtures.values(
                    "SELECT enumlabel::text FROM pg_enum WHERE enumtypid = '\(type)'::regtype ORDER BY enumsortorder",
                    as: String.self, in: database)
            }
            #expect(labels["review_state"] == ReviewState.allCases.map(\.rawValue))
            #expect(labels["review_action"] == ReviewAction.allCases.map(\.rawValue))
            #expect(labels["purchase_type"] == PurchaseType.allCases.map(\.rawValue))
            #expect(labels["key_role"] == KeyRole.allCases.map(\.rawValue))
            #expect(labels["history_kind"] == HistoryKind.allCases.map(\.rawValue))
        }
    }

    @Test("raw SQL cannot make an illegal state change, even with its history row")
    func illegalTransitionRefused() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.illegal")
            _ = try await StoreFixtures.product(database, in: app)
            await #expect(throws: (any Error).self) {
                try await StoreFixtures.run("""
                    WITH moved AS (
                        UPDATE products SET state = 'READY_FOR_SALE', version = 2, last_change = 'accept'
                        WHERE app = 'com.raw.illegal' RETURNING 1)
                    SELECT history_append('{"kind":"action","app":"com.raw.illegal","productId":"coins",
                        "productVersion":2,"actor":{"name":"mallory","role":"admin"}}') FROM moved
                    """, in: database)
            }
            // Nor create a product on sale.
            await #expect(throws: PSQLError.self) {
                try await StoreFixtures.run("""
                    INSERT INTO products (app, product_id, type, reference_name, state)
                    VALUES ('com.raw.illegal', 'sneaky', 'CONSUMABLE', 'Sneaky', 'READY_FOR_SALE')
                    """, in: database)
            }
            let states = try await StoreFixtures.values("SELECT state::text FROM products WHERE app = 'com.raw.illegal'",
                                                        as: String.self, in: database)
            #expect(states == ["PENDING_DEVELOPER_APPROVAL"])
        }
    }

    @Test("raw SQL cannot store localizations beyond App Store Connect's limits, on creation or on edit")
    func localizationsRefused() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.localizations")
            _ = try await StoreFixtures.product(database, in: app)
            func refusal(_ sql: String) async -> String? {
                do {
                    try await StoreFixtures.run(sql, in: database)
                    return nil
                } catch let error as PSQLError {
                    return "\(error.serverInfo?[.sqlState] ?? "") \(error.serverInfo?[.constraintName] ?? "")"
                } catch {
                    return "\(error)"
                }
            }
            let tooLong = #"[{"locale":"en-US","displayName":"A name far longer than thirty characters","description":"d"}]"#
            let created = await refusal("""
                INSERT INTO products (app, product_id, type, reference_name, localizations)
                VALUES ('com.raw.localizations', 'long', 'CONSUMABLE', 'Long', '\(tooLong)')
                """)
            #expect(created == "23514 products_localizations_check")
            let edited = await refusal("""
                WITH edited AS (
                    UPDATE products SET localizations = '\(tooLong)', version = 2, last_change = 'edit'
                    WHERE app = 'com.raw.localizations' RETURNING 1)
                SELECT history_append('{"kind":"edited","app":"com.raw.localizations","productId":"coins",
                    "productVersion":2,"actor":{"name":"mallory","role":"admin"}}') FROM edited
                """)
            #expect(edited == "23514 products_localizations_check")
            let names = try await StoreFixtures.values(
                "SELECT localizations -> 0 ->> 'displayName' FROM products WHERE app = 'com.raw.localizations'",
                as: String.self, in: database)
            #expect(names == ["Gold"])
        }
    }

    @Test("raw SQL can make a legal move only together with its history event")
    func noHistoryNoChange() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.history")
            _ = try await StoreFixtures.product(database, in: app)
            let move = """
                UPDATE products SET state = 'APPROVED_BY_DEVELOPER', version = 2, last_change = 'approve'
                WHERE app = 'com.raw.history'
                """
            await #expect(throws: PSQLError.self) { try await StoreFixtures.run(move, in: database) }
            await #expect(throws: PSQLError.self) {
                try await StoreFixtures.run("UPDATE products SET reference_name = 'x', version = 2 WHERE app = 'com.raw.history'",
                                            in: database)
            }
            await #expect(throws: PSQLError.self) {
                try await StoreFixtures.run("DELETE FROM products WHERE app = 'com.raw.history'", in: database)
            }
            try await StoreFixtures.run("""
                WITH moved AS (\(move) RETURNING 1)
                SELECT history_append('{"kind":"action","action":"approve","app":"com.raw.history",
                    "productId":"coins","productVersion":2,"actor":{"name":"dba","role":"admin"}}') FROM moved
                """, in: database)
            let found = try await database.products.find("com.raw.history", "coins")
            #expect(found?.state == .approvedByDeveloper)
        }
    }

    @Test("history refuses UPDATE, DELETE and TRUNCATE, from any client", arguments: [
        "UPDATE history_events SET reason = 'rewritten'",
        "DELETE FROM history_events",
        "TRUNCATE history_events",
        "UPDATE history_chains SET last_seq = 0",
        "DELETE FROM history_chains",
        "TRUNCATE history_chains CASCADE",
    ])
    func historyIsAppendOnly(statement: String) async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            _ = try await StoreFixtures.app(database, "com.raw.append.\(abs(statement.hashValue))")
            let before = try await StoreFixtures.values("SELECT count(*) FROM history_events", as: Int.self, in: database)
            await #expect(throws: PSQLError.self) { try await StoreFixtures.run(statement, in: database) }
            let after = try await StoreFixtures.values("SELECT count(*) FROM history_events", as: Int.self, in: database)
            #expect(after[0] >= before[0])
        }
    }

    @Test("a deleted product's id stays reserved; reservations cannot be removed")
    func reservationsOutliveDeletion() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.reserved")
            let product = try await StoreFixtures.product(database, in: app)
            let deleted = try await database.products.delete(product, event: HistoryRecord(
                kind: .deleted, bundleID: app.bundleID, productID: product.productID,
                productVersion: product.version + 1, actor: StoreFixtures.actor))
            #expect(deleted)
            #expect(try await database.products.find(app.bundleID, product.productID) == nil)
            await #expect(throws: CatalogError.conflict("this productId was used before in the app and stays reserved for good")) {
                _ = try await StoreFixtures.product(database, in: app)
            }
            await #expect(throws: PSQLError.self) {
                try await StoreFixtures.run("DELETE FROM product_id_reservations WHERE app = 'com.raw.reserved'", in: database)
            }
        }
    }

    @Test("an app holds at most 10,000 products, whatever the client")
    func productLimit() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.full")
            // Fill the app as 10,000 creations would, without making them one by one.
            try await TestDatabase.execute("""
                WITH filled AS (
                    INSERT INTO products (app, product_id, type, reference_name)
                    SELECT 'com.raw.full', 'p' || n, 'CONSUMABLE', 'P ' || n FROM generate_series(1, 10000) AS n
                    RETURNING product_id)
                SELECT history_append(jsonb_build_object('kind', 'created', 'app', 'com.raw.full', 'productId', product_id,
                                      'productVersion', 1, 'actor', jsonb_build_object('name', 'bulk', 'role', 'admin')))
                FROM filled
                """, in: url)
            await #expect(throws: CatalogError.conflict("an app holds at most 10000 products")) {
                _ = try await StoreFixtures.product(database, in: app, id: "one.more")
            }
        }
    }

    @Test("every event links to the one before it in its app's chain, and the hashes recompute")
    func hashChain() async throws {
        let url = try await TestDatabase.forSuite("schema_invariants")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.raw.chain")
            var product = try await StoreFixtures.product(database, in: app)
            for action in [ReviewAction.approve, .submit, .startReview, .accept] {
                product = try await StoreFixtures.perform(action, on: product, in: app, database)
            }
            let broken = try await StoreFixtures.values("""
                SELECT count(*) FROM (
                    SELECT hash, previous_hash, history_canonical(h) AS canonical,
                           lag(hash) OVER (ORDER BY chain_seq) AS before, chain_seq,
                           row_number() OVER (ORDER BY chain_seq) AS position
                    FROM history_events h WHERE chain = 'com.raw.chain') AS c
                WHERE hash <> sha256(previous_hash || convert_to(canonical, 'UTF8'))
                   OR previous_hash <> coalesce(before, decode(repeat('00', 32), 'hex'))
                   OR chain_seq <> position
                """, as: Int.self, in: database)
            #expect(broken == [0])
            let events = try await StoreFixtures.values("SELECT count(*) FROM history_events WHERE chain = 'com.raw.chain'",
                                                        as: Int.self, in: database)
            #expect(events == [6])
        }
    }
}
