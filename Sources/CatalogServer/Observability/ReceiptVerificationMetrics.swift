import CoreMetrics
import Prometheus
import Synchronization

/// The receipt verification worker's metrics (docs/operations.md): submissions leased and App Store calls in
/// flight in this process, outcomes of attempts, and how long the App Store took to answer.
final class ReceiptVerificationMetrics: Sendable {
    /// What became of an attempt.
    enum Outcome: String, CaseIterable, Sendable {
        case verified, invalid, retrying, failed
        /// Not recorded: the lease had expired and another worker had taken the submission.
        case superseded
        /// Given back at shutdown before the App Store answered.
        case released
        /// Not recorded: the database stayed unreachable until the lease ran out (the attempt is made again).
        case unrecorded
    }

    /// What the worker holds now, read when the metrics are rendered.
    typealias Load = @Sendable () -> (leased: Int, inFlight: Int)

    private let outcomes: [Outcome: CoreMetrics.Counter]
    private let latency: CoreMetrics.Timer
    private let leased: Prometheus.Gauge
    private let inFlight: Prometheus.Gauge
    private let load = Mutex<Load?>(nil)

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        var outcomes: [Outcome: CoreMetrics.Counter] = [:]
        for outcome in Outcome.allCases {
            outcomes[outcome] = CoreMetrics.Counter(label: "receipt_verification_outcomes_total",
                                                    dimensions: [("outcome", outcome.rawValue)], factory: factory)
        }
        self.outcomes = outcomes
        latency = CoreMetrics.Timer(label: "appstore_verify_receipt_duration_seconds", dimensions: [], factory: factory)
        leased = registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "receipt_submissions_leased", unitName: "",
            helpText: "Receipt submissions this process has leased and not yet recorded"))
        inFlight = registry.makeGauge(descriptor: MetricNameDescriptor(
            metricName: "receipt_verifications_in_flight", unitName: "",
            helpText: "Receipt verifications asking the App Store now"))
    }

    /// Reads the worker's load from `load` when rendering.
    func observe(_ load: @escaping Load) {
        self.load.withLock { $0 = load }
    }

    func count(_ outcome: Outcome) {
        outcomes[outcome]?.increment()
    }

    /// One verification's time, from the first call to the App Store to its answer (both endpoints' when the
    /// receipt was sent on to the other).
    func verification(took duration: Duration) {
        let (seconds, attoseconds) = duration.components
        latency.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Sets the gauges to the worker's load now.
    func render() {
        let now = load.withLock { $0 }?() ?? (leased: 0, inFlight: 0)
        leased.set(Double(now.leased))
        inFlight.set(Double(now.inFlight))
    }
}
