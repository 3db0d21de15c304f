@testable import CatalogAPIConventions
import CatalogCore
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

    @Test("it writes an instant in the proleptic Gregorian calendar, cut to the millisecond",
          arguments: [
              (0.0, "1970-01-01T00:00:00.000Z"), (-0.001, "1969-12-31T23:59:59.999Z"),
              (-0.0005, "1969-12-31T23:59:59.999Z"), (0.9995, "1970-01-01T00:00:00.999Z"),
              (951_868_799.999, "2000-02-29T23:59:59.999Z"), (1_795_000_000.8959, "2026-11-18T11:06:40.895Z"),
              (-12_219_292_800, "1582-10-15T00:00:00.000Z"), (-12_219_292_800.001, "1582-10-14T23:59:59.999Z"),
              (-62_135_596_800, "0001-01-01T00:00:00.000Z"), (253_402_300_799.9995, "9999-12-31T23:59:59.999Z"),
          ])
    func writes(seconds: Double, text: String) {
        #expect(RFC3339Text.milliseconds(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("what it writes reads back as the instant cut to the millisecond; to the second, Foundation's text")
    func writesEveryInstant() throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // Instants spread over years 1 to 9999, each half a millisecond from the nearest whole one: a Double
        // holds an instant of year 9999 to about 30 µs.
        for step in 0..<20_000 as Range<Int64> {
            let milliseconds = -62_135_596_800_000 + step * 15_776_894_880 + step * 7_919 % 1_000_000
            let seconds = (Double(milliseconds) + 0.5) / 1_000
            let date = Date(timeIntervalSince1970: seconds)
            let written = RFC3339Text.milliseconds(date)
            let read = try #require(RFC3339DateTranscoder.parse(written), "\(written)")
            #expect(abs(read.timeIntervalSince1970 - Double(milliseconds) / 1_000) < 0.000_1, "\(written)")
            // Foundation's style counts days in the Julian calendar before 1583, and writes a millisecond less
            // than the instant's for some (951,868,799.999 as …59.998).
            if seconds >= -12_212_553_600 {
                #expect(written.prefix(19) == date.formatted(style).prefix(19), "\(seconds)")
            }
        }
        // Outside years 1 to 9999, which RFC 3339 cannot write, the year as it is.
        #expect(RFC3339Text.milliseconds(Date(timeIntervalSince1970: -62_135_596_800.001))
                    == "0000-12-31T23:59:59.999Z")
        #expect(RFC3339Text.milliseconds(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
        #expect(RFC3339Text.milliseconds(Date(timeIntervalSince1970: -62_198_755_200)) == "-1-01-01T00:00:00.000Z")
        // Beyond the integers it counts in, Foundation's style.
        let far = Date(timeIntervalSince1970: 2e15)
        let foundation = far.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(RFC3339Text.milliseconds(far) == foundation)
    }

    @Test("what it writes, it reads back to the millisecond")
    func roundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.125)
        let text = try transcoder.encode(date)
        #expect(text == "2026-11-18T11:06:40.125Z")
        #expect(abs(try transcoder.decode(text).timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
    }
}
