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
    /// `--json` each page is printed as received. Says on stderr when more were left unfetched.
    func collect<Item>(_ session: Session, noun: String,
                       _ fetch: (_ cursor: String?, _ pageSize: Int) async throws -> (items: [Item], next: String?))
        async throws -> [Item]
    {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let wanted = all ? Self.largestPage : min(limit - items.count, Self.largestPage)
            let page = try await fetch(cursor, wanted)
            if session.format == .json { session.printJSON() }
            items += page.items
            cursor = page.next
        } while cursor != nil && (all || items.count < limit)
        if cursor != nil, session.format == .human {
            session.console.note(session.console.paintError(
                "showing the first \(items.count) \(noun); --all or --limit N for more", .dim))
        }
        return items
    }
}
