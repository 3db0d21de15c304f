@testable import CatalogStore
import CatalogCore
import CatalogTestSupport
import Foundation
import NIOCore
import PostgresNIO
import Synchronization
import Testing

/// The change feed: notices as committed, `resumed` after a lost connection, and history read in sequence order
/// without skipping an event that a slower transaction commits later. Each test has its own database: a
/// transaction open in a database holds back how far its history can be read.
@Suite("Change feed", .timeLimit(.minutes(6)))
struct CatalogChangesTests {
    /// The next notice, or `nil` if none comes within `limit`.
    static func next(_ notices: CatalogChanges.Subscription, within limit: Duration = .seconds(30)) async
        -> CatalogChanges.Notice?
    {
        if case .notice(let notice) = await notices.next(until: .now() + TimeAmount(limit)) { return notice }
        return nil
    }

    static func event(_ app: String, _ productID: String) -> HistoryRecord {
        HistoryRecord(kind: .edited, bundleID: app, productID: productID, actor: StoreFixtures.actor)
    }

    @Test("a subscriber hears `resumed` first, then the changes of its topics as they commit, and only those")
    func notices() async throws {
        try await ChangeFeedFixture.withFeed("change_feed_notices") { changes, database, url in
            try await changes.withSubscription(to: [.identifiers, .keys]) { notices in
                #expect(await Self.next(notices) == .resumed)
                _ = try await StoreFixtures.app(database, "com.feed.notices")
                #expect(await Self.next(notices) == .identifiers(app: "com.feed.notices"))
                _ = try await TestKeys.make(.auditor, in: url)
                try await TestDatabase.execute("UPDATE api_keys SET name = 'renamed by hand'", in: url)
                let key = await Self.next(notices)
                guard case .key(let id)? = key else {
                    Issue.record("expected a key's notice, got \(String(describing: key))")
                    return
                }
                #expect(UUID(uuidString: id) != nil)
                // History is not a topic of this subscriber: an event written now is not announced.
                try await database.history.append(Self.event("com.feed.notices", "x"))
                #expect(await Self.next(notices, within: .milliseconds(300)) == nil)
            }
        }
    }

    @Test("after a lost connection a subscriber hears `interrupted`, then `resumed` once the feed listens again")
    func lostConnection() async throws {
        try await ChangeFeedFixture.withFeed("change_feed_lost") { changes, database, url in
            try await changes.withSubscription(to: [.identifiers]) { notices in
                #expect(await Self.next(notices) == .resumed)
                // The feed's connection: the last thing it did was listen (nobody follows the history here).
                try await TestDatabase.execute("""
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'LISTEN%'
                    """, in: url)
                #expect(await Self.next(notices) == .interrupted)
                #expect(await Self.next(notices) == .resumed)
                #expect(changes.isListening)
                _ = try await StoreFixtures.app(database, "com.feed.again")
                #expect(await Self.next(notices) == .identifiers(app: "com.feed.again"))
            }
        }
    }

    @Test("a consumer that falls behind holds a bounded number of notices, then is told to read everything again")
    func boundedSubscription() async {
        let subscription = CatalogChanges.Subscription(topics: [.identifiers])
        subscription.deliver(.identifiers(app: "a"))
        subscription.deliver(.identifiers(app: "a"))
        subscription.deliver(.identifiers(app: "b"))
        #expect(await subscription.next() == .identifiers(app: "a"))
        #expect(await subscription.next() == .identifiers(app: "b"))
        for index in 0..<(CatalogChanges.Subscription.capacity + 1) { subscription.deliver(.identifiers(app: "app\(index)")) }
        #expect(await subscription.next() == .resumed)
        subscription.deliver(.identifiers(app: "c"))
        #expect(await subscription.next() == .identifiers(app: "c"))
        subscription.finish()
        #expect(await subscription.next() == nil)
    }

    @Test("a wait with a deadline ends with the first notice, at its deadline, or when the notices end or it is cancelled")
    func deadlineWait() async throws {
        let subscription = CatalogChanges.Subscription(topics: [.history])
        let clock = ContinuousClock()

        // Nothing comes: the wait ends at its deadline, not before.
        var start = clock.now
        #expect(await subscription.next(until: .now() + .milliseconds(150)) == .deadline)
        #expect(clock.now - start >= .milliseconds(150))
        #expect(await subscription.next(until: .now() - .milliseconds(1)) == .deadline)

        // A notice ends the wait long before its deadline; a notice already waiting is answered at once.
        start = clock.now
        async let woken = subscription.next(until: .now() + .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        subscription.deliver(.history)
        #expect(await woken == .notice(.history))
        #expect(clock.now - start < .seconds(5))
        subscription.deliver(.history)
        #expect(await subscription.next(until: .now() + .seconds(30)) == .notice(.history))

        // The first wait's deadline has no hold on the next wait: this one waits for its own. The first deadline is
        // far beyond the sleep, so that a loaded machine still delivers before it (CI's parallel run once did not
        // with 100 ms against 50), and its timer would fire within the next wait.
        async let early = subscription.next(until: .now() + .seconds(1))
        try await Task.sleep(for: .milliseconds(50))
        subscription.deliver(.history)
        #expect(await early == .notice(.history))
        start = clock.now
        #expect(await subscription.next(until: .now() + .milliseconds(1_500)) == .deadline)
        #expect(clock.now - start >= .milliseconds(1_500))

        // Cancelled: ended at once, however far the deadline.
        let cancelled = Task { await subscription.next(until: .now() + .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        #expect(await cancelled.value == .ended)

        // Ended: every wait, now and later, whatever its deadline.
        async let last = subscription.next(until: .now() + .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        subscription.finish()
        #expect(await last == .ended)
        #expect(await subscription.next(until: .now() + .seconds(30)) == .ended)
    }

    @Test("an event committed after a later-numbered one is not skipped: the later one waits until it commits")
    func outOfOrderCommit() async throws {
        try await ChangeFeedFixture.withFeed("change_feed_order") { changes, database, url in
            let start = try await ChangeFeedFixture.position(changes)
            try await TestDatabase.withClient(url, maximumConnections: 1) { client in
                try await client.withConnection { slow in
                    // The slower transaction takes its number first and commits last.
                    _ = try await slow.query("BEGIN", logger: TestDatabase.logger).collect()
                    let first = try await slow.query(
                        "SELECT history_append(\(HistoryRecordJSON.text(Self.event("com.feed.slow", "first")))::jsonb)",
                        logger: TestDatabase.logger).collect()
                    let slowSequence = try #require(try first.first?.decode(Int64.self))
                    try await database.history.append(Self.event("com.feed.fast", "second"))
                    let page = try await changes.events(after: start, limit: 100, fresh: true)
                    #expect(page.events.isEmpty, "\(page.events.map(\.sequence)) readable while \(slowSequence) may commit")
                    #expect(try #require(changes.readableThrough) < slowSequence)
                    _ = try await slow.query("COMMIT", logger: TestDatabase.logger).collect()
                }
            }
            let page = try await ChangeFeedFixture.page(changes, after: start, count: 2)
            #expect(page.events.map { $0.record.productID ?? "" } == ["first", "second"])
            #expect(page.next == page.events.last?.sequence)
        }
    }

    @Test("a follower gets every committed event of concurrent writers once, in sequence order, none rolled back")
    func concurrentWriters() async throws {
        try await ChangeFeedFixture.withFeed("change_feed_writers") { changes, _, url in
            let start = try await ChangeFeedFixture.position(changes)
            let apps = (0..<6).map { "com.feed.writer\($0)" }
            let filter = HistoryFilter(visibleApps: Set(apps))
            let received = Received()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await changes.follow(after: start, filter: filter, pageSize: 7) { page in
                        received.sequences.withLock { $0.append(contentsOf: page.events.map(\.sequence)) }
                    }
                }
                // Each writer appends to its own app's chain, so that writers never queue on one chain head and
                // commit in any order; each transaction waits a little before it ends, and one in five rolls back.
                try await TestDatabase.withClient(url, maximumConnections: apps.count) { client in
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        for app in apps {
                            writers.addTask {
                                try await client.withConnection { connection in
                                    for round in 0..<30 {
                                        _ = try await connection.query("BEGIN", logger: TestDatabase.logger).collect()
                                        for index in 0..<(1 + round % 3) {
                                            let record = HistoryRecordJSON.text(Self.event(app, "r\(round).\(index)"))
                                            _ = try await connection.query("SELECT history_append(\(record)::jsonb)",
                                                                           logger: TestDatabase.logger).collect()
                                        }
                                        _ = try await connection.query("SELECT pg_sleep(random() * 0.01)",
                                                                       logger: TestDatabase.logger).collect()
                                        let end = round % 5 == 4 ? "ROLLBACK" : "COMMIT"
                                        _ = try await connection.query(PostgresQuery(unsafeSQL: end),
                                                                       logger: TestDatabase.logger).collect()
                                    }
                                }
                            }
                        }
                        try await writers.waitForAll()
                    }
                }
                let committed = try await TestDatabase.withDatabase(url) { database in
                    try await StoreFixtures.values(
                        "SELECT sequence FROM history_events WHERE app LIKE 'com.feed.writer%' ORDER BY sequence",
                        as: Int64.self, in: database)
                }
                #expect(committed.count == apps.count * 24 * 2, "rounds 0..<30 write 1, 2, 3 events; rounds 4, 9, ... roll back")
                let deadline = ContinuousClock.now + .seconds(30)
                while received.sequences.withLock({ $0.count }) < committed.count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                group.cancelAll()
                let got = received.sequences.withLock { $0 }
                #expect(got == committed, "missing \(Set(committed).subtracting(got).sorted()), extra \(Set(got).subtracting(committed).sorted())")
            }
        }
    }

    /// The sequences a follower was handed, in the order it got them.
    final class Received: Sendable {
        let sequences = Mutex<[Int64]>([])
    }
}
