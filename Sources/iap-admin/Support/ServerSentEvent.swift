/// One event of a Server-Sent Events stream as the catalog sends it (`GET /v1/events`): its `id` (the history
/// sequence), its `event` (the kind) and its `data` (the event's JSON, on one line).
struct ServerSentEvent: Sendable, Equatable {
    let id: Int64
    let kind: String
    let data: String

    /// Reads a stream's bytes as they come, in chunks cut anywhere, into events. Comments (heartbeats), `retry:`
    /// and events without a numeric id are skipped; a field's text is kept only up to the next blank line, so
    /// what it holds is one event at most (the server's events are a few kilobytes).
    struct Parser {
        private var pending: [UInt8] = []
        private var id: Int64?
        private var kind = ""
        private var data: [String] = []

        /// The events completed by `chunk`.
        mutating func feed(_ chunk: some Sequence<UInt8>) -> [ServerSentEvent] {
            var events: [ServerSentEvent] = []
            for byte in chunk {
                guard byte == UInt8(ascii: "\n") else {
                    pending.append(byte)
                    continue
                }
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                let line = String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                if line.isEmpty {
                    if let id, !data.isEmpty { events.append(ServerSentEvent(id: id, kind: kind, data: data.joined(separator: "\n"))) }
                    (id, kind, data) = (nil, "", [])
                } else if !line.hasPrefix(":") {
                    let (field, value) = Self.split(line)
                    switch field {
                    case "id": id = Int64(value)
                    case "event": kind = value
                    case "data": data.append(value)
                    default: break
                    }
                }
            }
            return events
        }

        /// `field: value` (one space after the colon is not part of the value, as the SSE standard says).
        private static func split(_ line: String) -> (String, String) {
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            return (String(line[..<colon]), String(value))
        }
    }
}
