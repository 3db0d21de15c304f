import Foundation
import Synchronization

/// How the stand-in's verifyReceipt behaves, switchable while it runs (`POST /standin/control`) and set at
/// start-up by `appstore-standin serve`'s flags.
public struct StandInBehaviour: Sendable, Hashable, Codable {
    /// How long each verifyReceipt call takes, in milliseconds: a uniform draw from this range (e.g. 3000–6000).
    public var latencyMs: ClosedRange<Int>
    /// What an outage looks like, or `none`.
    public var outage: Outage
    /// When the outage ends by itself (`nil`: when switched off).
    public var outageEndsAt: Date?

    /// An outage of the App Store as a client sees it.
    public enum Outage: String, Sendable, Hashable, Codable, CaseIterable {
        /// Working.
        case none
        /// HTTP 503 to every verifyReceipt call.
        case unavailable
        /// Connections are closed without an answer, new and open ones alike.
        case drop
    }

    /// Answers at once, no outage.
    public static let prompt = StandInBehaviour(latencyMs: 0...0, outage: .none, outageEndsAt: nil)

    public init(latencyMs: ClosedRange<Int>, outage: Outage, outageEndsAt: Date?) {
        self.latencyMs = latencyMs
        self.outage = outage
        self.outageEndsAt = outageEndsAt
    }

    /// The outage in force at `now`.
    public func outage(at now: Date) -> Outage {
        if let outageEndsAt, now >= outageEndsAt { return .none }
        return outage
    }

    enum CodingKeys: String, CodingKey {
        case latencyMs, outage, outageEndsAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let bounds = try container.decode([Int].self, forKey: .latencyMs)
        guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
            throw DecodingError.dataCorruptedError(forKey: .latencyMs, in: container,
                                                   debugDescription: "latencyMs must be [lowest, highest]")
        }
        latencyMs = bounds[0]...bounds[1]
        outage = try container.decode(Outage.self, forKey: .outage)
        outageEndsAt = try container.decodeIfPresent(Date.self, forKey: .outageEndsAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode([latencyMs.lowerBound, latencyMs.upperBound], forKey: .latencyMs)
        try container.encode(outage, forKey: .outage)
        try container.encodeIfPresent(outageEndsAt, forKey: .outageEndsAt)
    }

    /// Reads a latency flag: `4000` or `3000-6000` (milliseconds).
    public static func latency(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .map { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch parts.count {
        case 1: if let value = parts[0], value >= 0 { return value...value }
        case 2: if let low = parts[0], let high = parts[1], low >= 0, low <= high { return low...high }
        default: break
        }
        return nil
    }
}

/// A change of behaviour: the body of `POST /standin/control`. Absent fields stay as they are.
///
/// ```json
/// {"latencyMs": [3000, 6000], "outage": "unavailable", "outageSeconds": 60}
/// ```
/// `outage` also takes `true` (= `unavailable`) and `false` (= `none`).
public struct BehaviourChange: Sendable, Hashable, Decodable {
    public var latencyMs: ClosedRange<Int>?
    public var outage: StandInBehaviour.Outage?
    public var outageSeconds: Double?

    public init(latencyMs: ClosedRange<Int>? = nil, outage: StandInBehaviour.Outage? = nil,
                outageSeconds: Double? = nil) {
        self.latencyMs = latencyMs
        self.outage = outage
        self.outageSeconds = outageSeconds
    }

    enum CodingKeys: String, CodingKey {
        case latencyMs, outage, outageSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let single = try? container.decodeIfPresent(Int.self, forKey: .latencyMs) {
            guard single >= 0 else {
                throw DecodingError.dataCorruptedError(forKey: .latencyMs, in: container,
                                                       debugDescription: "latencyMs must be 0 or more")
            }
            latencyMs = single...single
        } else if let bounds = try container.decodeIfPresent([Int].self, forKey: .latencyMs) {
            guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
                throw DecodingError.dataCorruptedError(forKey: .latencyMs, in: container,
                                                       debugDescription: "latencyMs must be [lowest, highest]")
            }
            latencyMs = bounds[0]...bounds[1]
        }
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .outage) {
            outage = flag ? .unavailable : StandInBehaviour.Outage.none
        } else {
            outage = try container.decodeIfPresent(StandInBehaviour.Outage.self, forKey: .outage)
        }
        outageSeconds = try container.decodeIfPresent(Double.self, forKey: .outageSeconds)
        if let outageSeconds, !(outageSeconds > 0 && outageSeconds.isFinite) {
            throw DecodingError.dataCorruptedError(forKey: .outageSeconds, in: container,
                                                   debugDescription: "outageSeconds must be above 0")
        }
    }

    /// `behaviour` with this change, made at `now`.
    public func applied(to behaviour: StandInBehaviour, now: Date = Date()) -> StandInBehaviour {
        var changed = behaviour
        if let latencyMs { changed.latencyMs = latencyMs }
        if let outage {
            changed.outage = outage
            changed.outageEndsAt = nil
        }
        if let outageSeconds, changed.outage != .none {
            changed.outageEndsAt = now.addingTimeInterval(outageSeconds)
        }
        return changed
    }
}
