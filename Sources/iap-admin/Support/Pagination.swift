import ArgumentParser

/// `--limit` and `--all` for commands that list: pages are fetched one after another, following the API's
/// `nextCursor`, until enough items are in hand.
struct PageOptions: ParsableArguments {
    @Option(help: "Show at most this many.")
    var limit = 50

    @Flag(help: "Show every one, however many pages that takes.")
    var all = false

    /// The API's largest page.
    static let largestPage = 200

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
    }

    /// Fetches pages with `fetch(cursor, pageSize)` until the limit is reached or there are no more; with
    /// `--json` each page is printed as received. `more` tells whether some were left unfetched.
    func collect<Item>(_ session: Session,
                       _ fetch: (_ cursor: String?, _ pageSize: Int) async throws -> (items: [Item], next: String?))
        async throws -> (items: [Item], more: Bool)
    {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let wanted = all ? Self.largestPage : min(limit - items.count, Self.largestPage)
            let page = try await fetch(cursor, wanted)
            await session.show {}  // with --json, each page as received
            items += page.items
            cursor = page.next
        } while cursor != nil && (all || items.count < limit)
        return (items, cursor != nil)
    }

    /// Says on stderr, after the table, that there are more than were shown.
    func noteMore(_ more: Bool, shown: Int, noun: String, session: Session) {
        guard more, session.format == .human else { return }
        session.console.note(session.console.paintError("showing the first \(shown) \(noun); --all or --limit N for more", .dim))
    }
}
