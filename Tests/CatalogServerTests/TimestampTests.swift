import CatalogAPIConventions
import Foundation
import Testing

/// RFC 3339 `date-time`, as the document's timestamps are read.
struct TimestampTests {
    let transcoder = RFC3339DateTranscoder()

    @Test("every form RFC 3339 allows reads as the instant it names", arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("1970-01-01t00:00:00z", 0.0),
        ("1970-01-01T00:00:00.5Z", 0.5),
        ("1970-01-01T00:00:00.123456789Z", 0.123456789),
        ("1970-01-02T00:00:00+23:59", 60.0),
        ("1969-12-31T05:05:00-19:55", 3_600.0),
        ("2000-02-29T12:00:00Z", 951_825_600.0),
        ("2173-02-25T06:42:45.13-19:55", 6_410_975_865.13),
    ])
    func reads(text: String, seconds: Double) throws {
        let date = try transcoder.decode(text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test("anything else is refused", arguments: [
        "", "yesterday", "2026-11-21", "2026-11-21T10:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-21T24:00:00Z", "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00+24:00", "2026-11-21T10:00:00+0100",
        "2026-11-21T10:00:00Z ", "２026-11-21T10:00:00Z",
    ])
    func refuses(text: String) {
        #expect(throws: InvalidTimestamp.self) { try transcoder.decode(text) }
    }

    @Test("what it writes, it reads back to the millisecond")
    func roundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.125)
        let text = try transcoder.encode(date)
        #expect(text == "2026-11-18T11:06:40.125Z")
        #expect(abs(try transcoder.decode(text).timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
    }
}
