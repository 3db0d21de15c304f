import NIOCore
import PostgresNIO

/// Runs a callback once after a delay unless it is cancelled first: the timeouts of waiting for a permit or a
/// connection, which are set for every database operation and almost always cancelled.
///
/// Not `Task.sleep`: a cancelled sleep keeps its timer and about 250 bytes until its deadline has passed
/// (swiftlang/swift#60441); with one per operation, the service's memory grew with the operations it served
/// (docs/performance.md). A task scheduled on an event loop is taken out of the loop's queue when cancelled.
struct Alarm: Sendable {
    private let scheduled: Scheduled<Void>

    init(after delay: Duration, _ ring: @escaping @Sendable () -> Void) {
        scheduled = PostgresConnection.defaultEventLoopGroup.any().scheduleTask(in: TimeAmount(delay)) { ring() }
    }

    /// Stops the alarm if it has not rung; later calls do nothing.
    func cancel() {
        scheduled.cancel()
    }
}
