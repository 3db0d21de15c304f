import CatalogCore
import CatalogStore
import CoreMetrics
import HTTPTypes
import Prometheus
import Synchronization

/// The service's metrics, in Prometheus' text format at `GET /metrics`: requests and their latency per
/// route, method and status; database connections in use and requests waiting for one; actions taken per
/// action and outcome; the apps whose identifier lists are in memory; the API requests in flight; the receipt
/// verification worker's (``ReceiptVerificationMetrics``). Metric objects are made once per label set and kept,
/// so that recording is an atomic update.
final class ServiceMetrics: Sendable {
    private struct RequestLabels: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct RequestMetrics {
        let count: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let requests = Mutex<[RequestLabels: RequestMetrics]>([:])
    private let actions = Mutex<[String: CoreMetrics.Counter]>([:])
    private let pool: ConnectionPool?
    private let snapshots: IdentifierSnapshots
    private let connectionsInUse: Prometheus.Gauge
    private let connectionsWaiting: Prometheus.Gauge
    private let connectionsMax: Prometheus.Gauge
    private let lifecycleChangesPending: Prometheus.Gauge
    private let unansweredLifecycleChanges: @Sendable () -> Int
    private let submissionsPending: Prometheus.Gauge
    private let unansweredSubmissions: @Sendable () -> Int
    private let identifierApps: Prometheus.Gauge
    private let inFlight: Prometheus.Gauge
    /// The API requests being answered now (background work gives way to them).
    let requestsInFlight: RequestsInFlight
    /// The receipt verification worker's.
    let receipts: ReceiptVerificationMetrics

    /// - Parameters:
    ///   - lifecycleChanges: how many lifecycle changes wait to be written together (``Database``).
    ///   - submissions: how many purchase submissions wait to be written together (``Database``).
    init(pool: ConnectionPool?, snapshots: IdentifierSnapshots, requestsInFlight: RequestsInFlight = RequestsInFlight(),
         lifecycleChanges: @escaping @Sendable () -> Int = { 0 }, submissions: @escaping @Sendable () -> Int = { 0 }) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.registry = registry
        self.factory = factory
        self.pool = pool
        self.snapshots = snapshots
        self.requestsInFlight = requestsInFlight
        unansweredLifecycleChanges = lifecycleChanges
        unansweredSubmissions = submissions
        func gauge(_ name: String, _ unit: String, _ help: String) -> Prometheus.Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: unit, helpText: help))
        }
        connectionsInUse = gauge("db_pool_connections_in_use", "", "Database operations holding a connection")
        connectionsWaiting = gauge("db_pool_requests_waiting", "", "Database operations waiting for a connection")
        connectionsMax = gauge("db_pool_connections_max", "", "Connections in the pool")
        lifecycleChangesPending = gauge("db_lifecycle_changes_pending", "",
                                 "Lifecycle changes waiting to be written together, or being written")
        submissionsPending = gauge("db_purchase_submissions_pending", "",
                                   "Purchase submissions waiting to be written together, or being written")
        identifierApps = gauge("identifier_snapshot_apps", "", "Apps whose identifier lists are served from memory")
        inFlight = gauge("http_requests_in_flight", "", "API requests being answered (long polls while they wait excluded)")
        receipts = ReceiptVerificationMetrics(registry: registry, factory: factory)
    }

    /// Counts a request and records how long it took.
    func request(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration) {
        let labels = RequestLabels(route: route, method: method.rawValue, status: Int(status.code))
        let metrics = requests.withLock { requests in
            if let metrics = requests[labels] { return metrics }
            let dimensions = [("route", labels.route), ("method", labels.method), ("status", String(labels.status))]
            let metrics = RequestMetrics(
                count: CoreMetrics.Counter(label: "http_requests_total", dimensions: dimensions, factory: factory),
                duration: CoreMetrics.Timer(label: "http_request_duration_seconds",
                                            dimensions: Array(dimensions.prefix(2)), factory: factory))
            requests[labels] = metrics
            return metrics
        }
        metrics.count.increment()
        metrics.duration.recordNanoseconds(Int64(duration.components.seconds) * 1_000_000_000
                                           + duration.components.attoseconds / 1_000_000_000)
    }

    /// Counts an action taken (`applied`) or refused (the problem's kind).
    func action(_ action: ReviewAction, outcome: String) {
        let key = "\(action.rawValue) \(outcome)"
        let counter = actions.withLock { actions in
            if let counter = actions[key] { return counter }
            let counter = CoreMetrics.Counter(label: "catalog_actions_total",
                                              dimensions: [("action", action.rawValue), ("outcome", outcome)],
                                              factory: factory)
            actions[key] = counter
            return counter
        }
        counter.increment()
    }

    /// The text exposition, with the gauges read now.
    func render() -> [UInt8] {
        if let pool {
            let load = pool.load
            connectionsInUse.set(Double(load.running))
            connectionsWaiting.set(Double(load.waiting))
            connectionsMax.set(Double(pool.size))
        }
        lifecycleChangesPending.set(Double(unansweredLifecycleChanges()))
        submissionsPending.set(Double(unansweredSubmissions()))
        identifierApps.set(Double(snapshots.count))
        inFlight.set(Double(requestsInFlight.current))
        receipts.render()
        return registry.emitToBuffer()
    }
}
