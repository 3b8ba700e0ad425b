import Foundation

/// The current time, injectable for tests.
public struct Now: Sendable {
    public var date: @Sendable () -> Date
    public init(_ date: @escaping @Sendable () -> Date) { self.date = date }
    public static let system = Now { Date() }
}

/// RFC 3339 timestamps in UTC, as the contract requires.
///
/// Plain calendar arithmetic (proleptic Gregorian, UTC): no formatter objects, so writing a status
/// or a history row never loads ICU's locale and calendar data (several MB a long-running agent
/// would keep resident) and costs well under a microsecond.
public enum RFC3339 {
    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (rounded down).
    public static func string(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        guard t.isFinite, abs(t) < 1e13 else { return "1970-01-01T00:00:00Z" }
        let secs = Int64(t.rounded(.down))
        let days = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let rem = Int(secs - days * 86_400)
        let (y, m, d) = civil(fromDays: days)
        var out = ""
        out.reserveCapacity(20)
        out += pad(y, 4); out += "-"; out += pad(m, 2); out += "-"; out += pad(d, 2)
        out += "T"; out += pad(rem / 3600, 2); out += ":"; out += pad(rem / 60 % 60, 2); out += ":"; out += pad(rem % 60, 2)
        out += "Z"
        return out
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (a `t` or a space for the `T`, `z` for `Z`).
    public static func date(_ string: String) -> Date? {
        let b = Array(string.utf8)
        func num(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for i in at..<(at + n) {
                let c = b[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard b.count >= 20, let y = num(0, 4), b[4] == 45, let mo = num(5, 2), b[7] == 45, let d = num(8, 2),
              b[10] == 84 || b[10] == 116 || b[10] == 32,
              let h = num(11, 2), b[13] == 58, let mi = num(14, 2), b[16] == 58, let s = num(17, 2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h <= 23, mi <= 59, s <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2),
                  oh <= 23, om <= 59 {
            offset = (oh * 3600 + om * 60) * (b[i] == 45 ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let secs = days(fromCivil: y, mo, d) * 86_400 + Int64(h * 3600 + mi * 60 + s - offset)
        return Date(timeIntervalSince1970: Double(secs) + fraction)
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    static func days(fromCivil y: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y - 1 : y)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((m + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }
}
