import ArgumentParser
import CatalogAPI
import Foundation
import OpenAPIRuntime

/// `events`: the history as a live feed.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow the catalog's events live (review decisions, changes, keys, sales).",
        discussion: """
            Every history event is an event: catalog changes, review decisions, keys, webhooks, the ledger's \
            transactions. `events tail` follows them as they happen (the server's event stream) and resumes \
            where it was after a dropped connection. Webhooks deliver the same events to other systems: see \
            `admin-cli webhooks`.

            Example, wait for the next review decision of an app:
              admin-cli events tail --app com.example.game --kind action --count 1
            """,
        subcommands: [Tail.self],
        defaultSubcommand: Tail.self)
}

extension Events {
    /// `events tail`.
    struct Tail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tail",
            abstract: "Print events as they happen, following the live stream.",
            discussion: """
                Starts after the newest event that matches (or after --after SEQ: 0 for the whole history) and \
                prints each event as it comes, one line each, until interrupted or --count events were printed. \
                A dropped connection is resumed after the last event printed, so none is missed or repeated. \
                --json prints each event's JSON, one per line (NDJSON); --quiet prints each sequence number.

                Examples:
                  admin-cli events tail --app com.example.game
                  admin-cli events tail --kind transaction_recorded --json | jq .productId
                  admin-cli events tail --after 0 --count 100 --quiet
                """)

        @Option(help: "Only this app's events (default: every app your key may see).")
        var app: String?

        @Option(help: "Only this kind of event.")
        var kind: Components.Schemas.HistoryKind?

        @Option(help: ArgumentHelp("Start after this sequence number (default: after the newest event).", valueName: "seq"))
        var after: Int64?

        @Option(help: ArgumentHelp("Stop after this many events (default: follow until interrupted).", valueName: "n"))
        var count: Int?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let after, after < 0 { throw ValidationError("--after must be 0 or more") }
            if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
        }

        func run() async throws {
            let session = try Session(global)
            var position: Int64
            if let after { position = after } else { position = try await newest(session) }
            var printed = 0
            var failures = 0
            while count.map({ printed < $0 }) ?? true {
                do {
                    try await follow(session, after: position) { event in
                        position = event.id
                        printed += 1
                        failures = 0
                        show(event, session: session)
                        return count.map { printed < $0 } ?? true
                    }
                } catch let failure as CommandFailure where failure.status != .unavailable {
                    throw failure
                } catch {
                    // The stream ended or broke: resume after the last event shown, less often while it fails.
                    failures += 1
                    if failures >= Self.attempts {
                        throw CommandFailure(.unavailable, "the event stream failed \(Self.attempts) times in a row "
                            + "(\(Self.describe(error))); the last event printed was \(position)")
                    }
                    session.console.note(session.console.paintError("reconnecting:", .yellow)
                        + " the event stream ended (\(Self.describe(error))); resuming after \(position)")
                }
                guard count.map({ printed < $0 }) ?? true else { break }
                try await Task.sleep(for: .milliseconds(min(200 * (1 << min(failures, 5)), 5_000)))
            }
        }

        /// How many reconnections in a row may fail before the command gives up.
        static let attempts = 30

        /// The sequence of the newest event the filters select: where a tail starts by default.
        private func newest(_ session: Session) async throws -> Int64 {
            let query = Operations.ListHistory.Input.Query(app: app, kind: kind, order: .newest, limit: 1)
            return try await session.answer({
                try await $0.listHistory(query: query, headers: .init(accept: [.init(contentType: .json)]))
            }) { output in
                guard case .json(let page) = try output.ok.body else {
                    throw CommandFailure(.serverError, "the server answered an export where a page of JSON was asked for")
                }
                return Int64(page.items.first?.sequence ?? 0)
            }
        }

        /// Reads the stream after `position`, handing each event to `body` until it answers `false` (then returns)
        /// or the stream ends (then throws, so that the caller resumes).
        private func follow(_ session: Session, after position: Int64,
                            _ body: (ServerSentEvent) async throws -> Bool) async throws {
            let stream = try await session.answer({
                try await $0.listEvents(query: .init(app: app, kind: kind),
                                        headers: .init(lastEventID: String(position),
                                                       accept: [.init(contentType: .textEventStream)]))
            }) { output -> HTTPBody in
                guard case .textEventStream(let body) = try output.ok.body else {
                    throw CommandFailure(.serverError, "the server answered JSON where the event stream was asked for")
                }
                return body
            }
            var parser = ServerSentEvent.Parser()
            for try await chunk in stream {
                for event in parser.feed(chunk) where try await !body(event) { return }
            }
            throw StreamEnded()
        }

        private struct StreamEnded: Error, CustomStringConvertible {
            var description: String { "the server closed it" }
        }

        private static func describe(_ error: any Error) -> String {
            if let failure = error as? CommandFailure { return failure.message }
            return String(String(describing: error).prefix(200))
        }

        private func show(_ event: ServerSentEvent, session: Session) {
            let console = session.console
            switch session.format {
            case .json: console.print(event.data)
            case .quiet: console.print(String(event.id))
            case .human:
                guard let decoded = try? JSONFile.decode(Components.Schemas.HistoryEvent.self, from: Data(event.data.utf8),
                                                        path: "event \(event.id)")
                else { return console.print("\(event.id)  \(event.kind)") }
                console.print(History.line(decoded, console: console))
            }
        }
    }
}
