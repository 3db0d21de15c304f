import Foundation

/// A moment as the App Store writes it in signed data: whole milliseconds since 1970-01-01 UTC.
///
/// Kept as the integer Apple sent, so that a date read from a payload and written again (the stand-in, the
/// ledger) is the same number, with no floating-point rounding on the way.
public struct AppStoreDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    public var millisecondsSince1970: Int64

    /// The moment `millisecondsSince1970` after the epoch.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// `date`, to the millisecond (rounded towards the past).
    public init(_ date: Date) {
        self.millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The same moment as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    public static func < (lhs: AppStoreDate, rhs: AppStoreDate) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// Apple writes an integer; a fraction, a string or a number beyond 64 bits is not a date of its.
    public init(from decoder: any Decoder) throws {
        self.millisecondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }

    public var description: String { "\(millisecondsSince1970) ms (\(date))" }
}
