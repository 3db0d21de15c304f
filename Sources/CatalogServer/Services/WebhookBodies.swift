import CatalogAPI
import CatalogCore
import NIOCore
import Synchronization

/// The webhook body of each event, made once for every endpoint that delivers it: endpoints with the same
/// filters send the same events at about the same time, and the event's JSON is the larger part of a message's
/// making. The newest `capacity` bodies are kept (a body is a few hundred bytes to a few KB).
final class WebhookBodies: Sendable {
    private struct State {
        var bodies: [Int64: ByteBuffer] = [:]
        var order: [Int64]
        var next = 0
    }

    private let state: Mutex<State>

    init(capacity: Int = 4_096) {
        state = Mutex(State(order: Array(repeating: -1, count: max(1, capacity))))
    }

    /// `{"data": event, "timestamp": at, "type": kind}`: the event as the API answers it (``AnswerJSON``).
    func body(for event: HistoryEvent) throws -> ByteBuffer {
        if let made = state.withLock({ $0.bodies[event.sequence] }) { return made }
        let data = AnswerJSON.line(try Components.Schemas.HistoryEvent(event))
        let body = ByteBuffer(string: "{\"data\":\(data),\"timestamp\":\"\(RFC3339Text.milliseconds(event.at))\",\"type\":\"\(event.record.kind.rawValue)\"}")
        state.withLock { state in
            guard state.bodies[event.sequence] == nil else { return }
            state.bodies[state.order[state.next]] = nil
            state.order[state.next] = event.sequence
            state.next = (state.next + 1) % state.order.count
            state.bodies[event.sequence] = body
        }
        return body
    }
}
