import Foundation
import Testing
@testable import TKCore

@Suite struct RFC3339Tests {
    /// Foundation's formatter, the reference the arithmetic replaces.
    static func reference(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    @Test func formatsLikeFoundationAcrossCenturiesLeapDaysAndNegativeTimes() {
        var rng = SystemRandomNumberGenerator()
        var stamps: [Double] = [0, -1, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, -2_208_988_800, 1_700_000_000.999]
        for _ in 0..<2000 { stamps.append(Double(Int64.random(in: -6_000_000_000...8_000_000_000, using: &rng))) }
        for t in stamps {
            let d = Date(timeIntervalSince1970: t)
            #expect(RFC3339.string(d) == Self.reference(d), "\(t)")
            #expect(RFC3339.date(RFC3339.string(d)) == Date(timeIntervalSince1970: t.rounded(.down)), "\(t)")
        }
    }

    @Test func parsesOffsetsAndFractionsAndRefusesNonsense() throws {
        #expect(RFC3339.date("2026-11-24T03:30:00Z") == Date(timeIntervalSince1970: 1_795_491_000))
        #expect(RFC3339.date("2026-11-24T04:30:00+01:00") == Date(timeIntervalSince1970: 1_795_491_000))
        #expect(RFC3339.date("2026-11-23T22:00:00-05:30") == Date(timeIntervalSince1970: 1_795_491_000))
        let fractional = try #require(RFC3339.date("2026-11-24T03:30:00.250Z"))
        #expect(abs(fractional.timeIntervalSince1970 - 1_795_491_000.25) < 1e-6)
        for bad in ["", "2026-11-24", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-24T24:00:00Z",
                    "2026-11-24T03:30:00", "2026-11-24T03:30:00Zjunk", "2026-11-24T03:30:00.Z", "२०२६-11-24T03:30:00Z"] {
            #expect(RFC3339.date(bad) == nil, "\(bad)")
        }
    }
}
