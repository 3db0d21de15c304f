import PostgresNIO

/// A statement PostgreSQL parses and plans once per connection, then only binds and runs: for the statements
/// of every action (read the app, read the product, write the change), whose parsing and planning cost about
/// as much as their running (docs/performance.md). Its SQL has numbered parameters, whose types
/// `bindingDataTypes` fixes (a type inferred from a first `NULL` would refuse later values); `makeBindings`
/// gives the values in that order.
protocol PreparedQuery: PostgresPreparedStatement where Row == PostgresRow {}

extension PreparedQuery {
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension Database {
    /// Runs `statement` to its end, prepared on the operation's connection (inside ``translatingErrors(_:)``),
    /// or on any connection of the client when there is no pool, and answers its rows.
    @discardableResult
    func execute<Statement: PreparedQuery>(_ statement: Statement) async throws -> [PostgresRow] {
        try await translatingErrors {
            let logger = logger
            if let connection = Self.held {
                return try await connection.guarded {
                    try await Self.rows(of: connection.execute(statement, logger: logger))
                }
            }
            return try await Self.rows(of: client.execute(statement, logger: logger))
        }
    }

    private static func rows(of sequence: some AsyncSequence<PostgresRow, any Error>) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in sequence { rows.append(row) }
        return rows
    }
}

/// A prepared statement over one parameter, `$1::jsonb`: a batch's items as JSON text, which one SQL function
/// reads as a whole (purchases_record_signed, purchases_queue_receipts, receipt_queue_record). The text is bound
/// as `text` and cast in the SQL, so the statement is prepared once whatever the items.
protocol JSONItemsQuery: PreparedQuery {
    /// The items, as a JSON array (`JSONObjectWriter.array`).
    var items: String { get }
}

extension JSONItemsQuery {
    static var bindingDataTypes: [PostgresDataType] { [.text] }

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(items)
        return bindings
    }
}
