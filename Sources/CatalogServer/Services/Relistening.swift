import Logging
import Synchronization

/// Listening for the database's notifications again after every failure, until cancelled: a listener that
/// worked for a while listens again at once, one that keeps failing less and less often.
enum Relistening {
    static let firstBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(2)

    /// Runs `listen` again and again; `listen` calls `listened` once its subscription is in place.
    static func run(_ what: String, logger: Logger,
                    _ listen: (_ listened: @Sendable () -> Void) async throws -> Void) async {
        var backoff = firstBackoff
        while !Task.isCancelled {
            let listened = Atomic<Bool>(false)
            do {
                try await listen { listened.store(true, ordering: .relaxed) }
            } catch {
                if Task.isCancelled { break }
                logger.warning("listening for \(what) failed; listening again",
                               metadata: ["error": "\(String(reflecting: error))"])
            }
            backoff = listened.load(ordering: .relaxed) ? firstBackoff : min(backoff * 2, maximumBackoff)
            try? await Task.sleep(for: backoff)
        }
    }
}
