import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OpenAPIRuntime
import Testing

/// The auditors' API: filtered listings, exports, verification, the past.
@Suite("History over HTTP")
struct HistoryAPITests {
    /// Events become visible to listings once every older transaction of the cluster has finished, which
    /// other suites' writes can delay by moments: wait for them.
    private func eventually<T>(_ body: () async throws -> T, until done: (T) -> Bool) async throws -> T {
        var last = try await body()
        for _ in 0..<50 where !done(last) {
            try await Task.sleep(for: .milliseconds(100))
            last = try await body()
        }
        return last
    }

    private func page(_ api: API, _ query: String, key: String) async throws -> Components.Schemas.HistoryPage {
        try expect(try await api.send(.get, "/v1/history?\(query)", key: key), .ok, as: Components.Schemas.HistoryPage.self)
    }

    @Test("filters by app, product, actor, action, kind, state and time; newest or oldest first")
    func filters() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        let alice = try await fixture.key(.developer, name: "alice")
        try await fixture.run { api in
            let app = "com.history.filters"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "a", type: .consumable, key: alice)
            try await api.createProduct(app, "b", type: .consumable, key: keys.developer)
            let before = Date()
            try await api.move(.approve, app, "a", key: alice)
            try await api.move(.submit, app, "a", key: alice)
            try await api.move(.startReview, app, "a", key: keys.reviewer)
            try await api.move(.reject, app, "a", key: keys.reviewer, reason: "misleading")

            let all = try await eventually({ try await page(api, "app=\(app)&limit=200", key: keys.auditor) },
                                            until: { $0.items.count == 7 })
            #expect(all.items.map(\.sequence) == all.items.map(\.sequence).sorted(by: >))
            #expect(all.items.last?.kind == .appCreated)
            let oldest = try await page(api, "app=\(app)&order=oldest&limit=200", key: keys.auditor)
            #expect(oldest.items.map(\.sequence) == all.items.map(\.sequence).reversed())
            #expect(try await page(api, "app=\(app)&productId=b", key: keys.auditor).items.map(\.kind) == [.created])
            #expect(try await page(api, "app=\(app)&actor=alice", key: keys.auditor).items.count == 3)
            #expect(try await page(api, "app=\(app)&action=reject", key: keys.auditor).items.map(\.reason) == ["misleading"])
            #expect(try await page(api, "app=\(app)&kind=created", key: keys.auditor).items.count == 2)
            let inReview = try await page(api, "app=\(app)&state=IN_REVIEW", key: keys.auditor)
            #expect(inReview.items.map(\.action) == [.reject, .startReview])
            let since = before.addingTimeInterval(-0.001).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(try await page(api, "app=\(app)&since=\(since)", key: keys.auditor).items.count == 4)
            // The same instant with another offset RFC 3339 allows (Foundation's parser stops at ±18:00) and
            // more fractional digits; a timestamp that is not one is a 422 naming the rule.
            let east = Date(timeIntervalSince1970: (before.timeIntervalSince1970 * 1000).rounded(.down) / 1000 - 0.001
                            + 19 * 3600 + 55 * 60)
            var eastStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            eastStyle.timeZone = TimeZone(secondsFromGMT: 0)!
            let sinceEast = eastStyle.format(east).replacingOccurrences(of: "Z", with: "000+19:55")
                .replacingOccurrences(of: "+", with: "%2B")
            #expect(try await page(api, "app=\(app)&since=\(sinceEast)", key: keys.auditor).items.count == 4)
            let garbled = try problem(try await api.send(.get, "/v1/history?app=\(app)&since=yesterday", key: keys.auditor),
                                      .unprocessableContent, "validation-failed")
            #expect(garbled.errors?.first?.rule == "format")
            let reviewerID = try expect(try await api.send(.get, "/v1/me", key: keys.reviewer), .ok,
                                        as: Components.Schemas.Key.self).id
            #expect(try await page(api, "actor=\(reviewerID)", key: keys.auditor).items.count == 2)
        }
    }

    @Test("pages never repeat or skip an event while events are written meanwhile")
    func stablePagesUnderWrites() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.paging"
            try await api.createApp(app, key: keys.admin)
            for index in 0..<30 { try await api.createProduct(app, "p\(index)", type: .consumable, key: keys.developer) }
            _ = try await eventually({ try await page(api, "app=\(app)&limit=200", key: keys.auditor) },
                                     until: { $0.items.count == 31 })
            for order in ["newest", "oldest"] {
                var seen: [Int] = []
                var cursor: String?
                var writes = 0
                repeat {
                    let next = try await page(api, "app=\(app)&order=\(order)&limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                              key: keys.auditor)
                    seen += next.items.map(\.sequence)
                    cursor = next.nextCursor
                    // Write between pages: new events must neither appear in this listing nor shift it.
                    try await api.createProduct(app, "new.\(order).\(writes)", type: .consumable, key: keys.developer)
                    writes += 1
                } while cursor != nil
                #expect(seen.count == 31 + (order == "oldest" ? 8 : 0) || Set(seen).count == seen.count)
                #expect(Set(seen).count == seen.count, "no event twice")
                #expect(seen == (order == "newest" ? seen.sorted(by: >) : seen.sorted()))
            }
        }
    }

    @Test("a key limited to some apps sees only their events, and no key events")
    func scopedKeys() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        let scoped = try await fixture.key(.auditor, apps: ["com.history.mine"])
        try await fixture.run { api in
            try await api.createApp("com.history.mine", key: keys.admin)
            try await api.createApp("com.history.theirs", key: keys.admin)
            try await api.createProduct("com.history.theirs", "secret", type: .consumable, key: keys.developer)
            let seen = try await eventually({ try await page(api, "limit=200", key: scoped) }, until: { !$0.items.isEmpty })
            #expect(seen.items.allSatisfy { $0.app == "com.history.mine" })
            _ = try problem(try await api.send(.get, "/v1/history?app=com.history.theirs", key: scoped), .notFound, "not-found")
            let export = try await api.send(.get, "/v1/history", key: scoped, headers: [.accept: "application/x-ndjson"])
            #expect(!String(buffer: export.body).contains("com.history.theirs"))
        }
    }

    @Test("CSV opens in a spreadsheet: BOM, header row, RFC 4180 quoting, formulas neutralised")
    func csvExport() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.csv"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                               json: ["reviewNote": "line one\nsays \"hi\", then =SUM(A1)"])
            let response = try await eventually({
                try await api.send(.get, "/v1/history?app=\(app)&order=oldest", key: keys.auditor, headers: [.accept: "text/csv"])
            }, until: { String(buffer: $0.body).components(separatedBy: "\r\n").count >= 5 })
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/csv") == true)
            let text = String(buffer: response.body)
            #expect(text.hasPrefix("\u{FEFF}sequence,chain,chainSeq,at,"))
            let rows = CSV.parse(String(text.dropFirst()))
            #expect(rows.first?.count == 19 && rows.dropFirst().allSatisfy { $0.count == 19 })
            #expect(rows.count == 4)
            let edited = try #require(rows.last)
            #expect(edited[7] == "edited" && edited[15].contains("line one\\nsays \\\"hi\\\", then =SUM(A1)"))
            #expect(rows[1][3].hasSuffix("Z") && rows[1][3].count == 27)
        }
    }

    @Test("every NDJSON line recomputes to its hash, and each names its predecessor's")
    func ndjsonExportVerifies() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.ndjson"
            try await api.createApp(app, key: keys.admin)
            for index in 0..<5 { try await api.createProduct(app, "p\(index)", type: .consumable, key: keys.developer) }
            try await api.move(.approve, app, "p0", key: keys.developer)
            let response = try await eventually({
                try await api.send(.get, "/v1/history?app=\(app)&order=oldest", key: keys.auditor,
                                   headers: [.accept: "application/x-ndjson"])
            }, until: { String(buffer: $0.body).split(separator: "\n").count == 7 })
            var previous = String(repeating: "0", count: 64)
            for line in String(buffer: response.body).split(separator: "\n") {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let hash = try #require(object.removeValue(forKey: "hash") as? String)
                #expect(object.removeValue(forKey: "previousHash") as? String == previous)
                // An auditor's own canonicalisation: sorted keys, no whitespace, no escaped slashes.
                let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                var hasher = SHA256()
                hasher.update(data: [UInt8](hexadecimal: previous))
                hasher.update(data: canonical)
                #expect(hasher.finalize().map { String(format: "%02x", $0) }.joined() == hash)
                previous = hash
            }
        }
    }

    @Test("verification: every chain the key sees verifies; an auditor-only permission")
    func verifyEndpoint() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.verify"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            let one = try expect(try await api.send(.get, "/v1/history/verify?app=\(app)", key: keys.auditor), .ok,
                                 as: Components.Schemas.HistoryVerification.self)
            #expect(one.verified && one.chains.map(\.app) == [app] && one.chains.first?.events == 2)
            let all = try expect(try await api.send(.get, "/v1/history/verify", key: keys.admin), .ok,
                                 as: Components.Schemas.HistoryVerification.self)
            #expect(all.verified, "\(all.chains.filter { !$0.verified })")
            #expect(all.chains.contains { $0.app == nil } && all.chains.contains { $0.app == app })
            _ = try problem(try await api.send(.get, "/v1/history/verify", key: keys.developer), .forbidden, "forbidden")
        }
        // A superuser's rewrite is reported at its row.
        try await TestDatabase.execute("ALTER TABLE history_events DISABLE TRIGGER history_events_append_only", in: fixture.url)
        try await TestDatabase.execute("""
            UPDATE history_events SET actor_name = 'someone else' WHERE app = 'com.history.verify' AND kind = 'created'
            """, in: fixture.url)
        try await TestDatabase.execute("ALTER TABLE history_events ENABLE TRIGGER history_events_append_only", in: fixture.url)
        try await fixture.run { api in
            let result = try expect(try await api.send(.get, "/v1/history/verify?app=com.history.verify", key: keys.auditor),
                                    .ok, as: Components.Schemas.HistoryVerification.self)
            #expect(!result.verified && result.chains.first?.firstBrokenLink?.chainSequence == 2)
            #expect(result.chains.first?.firstBrokenLink?.problem == .hashMismatch)
        }
    }

    @Test("asOf answers what the API answered at that instant: state, version, content, live revision")
    func pointInTime() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.asof"
            try await api.createApp(app, key: keys.admin)
            let group = try await api.createGroup(app, key: keys.developer)
            var answers: [(Date, Components.Schemas.Product)] = []
            func record(_ product: Components.Schemas.Product) async throws {
                try await Task.sleep(for: .milliseconds(5))
                answers.append((Date(), product))
                try await Task.sleep(for: .milliseconds(5))
            }
            try await record(try await api.createProduct(app, "sub", type: .autoRenewableSubscription, key: keys.developer,
                                                         groupID: group.id))
            try await record(try await api.move(.approve, app, "sub", key: keys.developer))
            try await record(try await api.move(.submit, app, "sub", key: keys.developer))
            try await record(try await api.move(.startReview, app, "sub", key: keys.reviewer))
            try await record(try await api.move(.accept, app, "sub", key: keys.reviewer))
            try await record(try await api.move(.removeFromSale, app, "sub", key: keys.developer))
            try await record(try await api.move(.restoreToSale, app, "sub", key: keys.developer))
            try await record(try expect(try await api.send(.patch, "/v1/apps/\(app)/products/sub", key: keys.developer, json: [
                "reviewNote": "v2", "price": ["currency": "USD", "amount": "4.99"], "level": 2,
                "introductoryOffer": ["paymentMode": "FREE_TRIAL", "period": "P1W"]]), .ok, as: Components.Schemas.Product.self))
            try await record(try await api.move(.submitChange, app, "sub", key: keys.developer))
            let events = try await api.history(app, "sub", key: keys.auditor)
            for (instant, answered) in answers {
                let then = instant.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                let rebuilt = try expect(try await api.send(.get, "/v1/apps/\(app)/products/sub?asOf=\(then)", key: keys.auditor),
                                         .ok, as: Components.Schemas.Product.self)
                // The past's times are its events' times (taken by the database a moment after the answer's,
                // more than a second later on a loaded machine): the event that made this version, and the first.
                let made = try #require(events.first { $0.productVersion == answered.version })
                #expect(abs(rebuilt.updatedAt.timeIntervalSince(made.at)) < 0.001, "\(rebuilt.updatedAt) \(made.at)")
                let created = try #require(events.min { $0.sequence < $1.sequence })
                #expect(abs(rebuilt.createdAt.timeIntervalSince(created.at)) < 0.001)
                var expected = answered
                expected.allowedActions = []
                expected.createdAt = rebuilt.createdAt
                expected.updatedAt = rebuilt.updatedAt
                #expect(rebuilt == expected, "at \(then)")
            }
            let before = answers[0].0.addingTimeInterval(-60).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/products/sub?asOf=\(before)", key: keys.auditor),
                            .notFound, "not-found")
        }
    }

    @Test("edits list each changed field with old and new; apps, groups and keys are events too")
    func editsAreHistory() async throws {
        let fixture = try await APIFixture.forSuite("history_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.history.edits"
            try await api.createApp(app, key: keys.admin)
            try await api.send(.patch, "/v1/apps/\(app)", key: keys.admin, json: ["name": "Renamed app"])
            try await api.createGroup(app, key: keys.developer)
            try await api.createProduct(app, "p", type: .nonConsumable, key: keys.developer)
            try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                               json: ["referenceName": "New name", "familyShareable": true])
            try await api.send(.delete, "/v1/apps/\(app)/products/p", key: keys.developer)
            let kinds = try await eventually({ try await page(api, "app=\(app)&order=oldest", key: keys.auditor) },
                                             until: { $0.items.count == 6 }).items.map(\.kind)
            #expect(kinds == [.appCreated, .appEdited, .groupCreated, .created, .edited, .deleted])
            let edit = try await api.history(app, "p", key: keys.auditor)[1]
            #expect(edit.changes.map(\.field) == ["referenceName", "familyShareable"])
            #expect(edit.changes.first?.old == "Ref p" && edit.changes.first?.new == "New name")
            let created = try expect(try await api.send(.post, "/v1/keys", key: keys.admin, json: ["role": "auditor", "name": "Eve"]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            try await api.send(.delete, "/v1/keys/\(created.id)", key: keys.admin)
            let keyEvents = try await eventually({ try await page(api, "kind=key_revoked", key: keys.admin) },
                                                 until: { !$0.items.isEmpty })
            #expect(keyEvents.items.first?.app == nil && keyEvents.items.first?.changes.contains { $0.field == "name" } == true)
        }
    }
}

/// A small RFC 4180 reader, to read exports as a spreadsheet would.
enum CSV {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { cell.append("\""); characters.removeFirst() } else { quoted = false }
                } else { cell.append(character) }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(cell); cell = ""
            } else if character == "\r\n" || character == "\n" {
                row.append(cell); rows.append(row); row = []; cell = ""
            } else {
                cell.append(character)
            }
        }
        if !cell.isEmpty || !row.isEmpty { row.append(cell); rows.append(row) }
        return rows
    }
}
