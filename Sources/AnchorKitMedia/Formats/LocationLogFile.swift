import Foundation
import AnchorKit

/// A location log recorded beside a video (../shared/FORMATS.md, "Optional inputs and anchor
/// kinds"), in any of three formats, told apart by the file's first non-blank character (not by
/// its extension):
///
/// - `{`: JSON Lines, `location.jsonl`: one object per line with `time` (seconds of the video),
///   a fix (`latitude`, `longitude`, and optionally `altitude`, `horizontalAccuracy`,
///   `verticalAccuracy`, `course`, `speed`), a compass reading (`heading`, optionally
///   `headingAccuracy`), or both.
/// - `<`: GPX 1.0 or 1.1: the track points (`trkpt`), or, in a file without any, the route points
///   and waypoints that have a `time`.
/// - `$` or `!`: NMEA 0183: RMC, GGA and GST sentences give fixes, HDT compass headings.
///
/// Times: JSON Lines times are already seconds of the video. GPX and NMEA times are absolute
/// (UTC); a record's video time is the seconds since the earliest record of the log. In all three
/// formats `offset` (seconds) is then added to every time: the video time at which the log starts
/// for GPX and NMEA, a clock offset for JSON Lines.
public enum LocationLogFile {
    /// The formats read.
    public enum Format: String, Sendable {
        case jsonLines, gpx, nmea
    }

    /// What a log file holds: the log (fixes and headings each in time order, times in seconds of
    /// the video) and the warnings it gave, each one line starting with the file's path.
    public struct Contents: Sendable, Equatable {
        /// The file read.
        public let path: String
        /// Its format, as its first character tells.
        public let format: Format
        /// The fixes and compass readings.
        public var log: LocationLog
        /// Problems that do not stop the log from being used: fixes out of time order (sorted),
        /// no compass heading, NMEA sentences skipped for a bad checksum, altitudes that are not
        /// above the ellipsoid.
        public var warnings: [String]

        /// One warning per kind of record (fixes, headings) of which some fall outside the video:
        /// before `-margin` or after `duration + margin` seconds. Such records usually mean a
        /// wrong offset or a log of another recording.
        public func warnings(forVideoDuration duration: Double, margin: Double = 5) -> [String] {
            let span = -margin...(duration + margin)
            func warning(_ times: [Double], _ noun: String) -> String? {
                let outside = times.filter { !span.contains($0) }
                guard let first = outside.first else { return nil }
                return "\(path): \(noun) outside the video's \(duration) s (more than \(margin) s before its start or after its end): "
                    + "\(outside.count) of \(times.count), the first at \(first) s: check the time offset"
            }
            return [warning(log.fixes.map(\.time), "fixes"), warning(log.headings.map(\.time), "compass headings")]
                .compactMap { $0 }
        }
    }

    /// Reads a location log (see the type's description for the formats and times); `offset` is
    /// added to every time, in seconds.
    ///
    /// Throws a one-line ``InputError`` naming the file (and the line, where there is one) for a
    /// missing, empty or malformed file, a latitude beyond ±90°, a longitude beyond ±180°, a
    /// number that is not finite, or a log without any position fix. Negative accuracies, course
    /// and speed mean unknown and are read as -1.
    public static func read(contentsOf path: String, offset: Double = 0) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        guard offset.isFinite else { throw InputError(path, "time offset \(offset) is not finite") }
        let format: Format
        // A byte order mark, as Windows tools write, is not the format's first character.
        let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        switch text.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }) {
        case nil: throw InputError(path, "empty file: no location fix")
        case UInt8(ascii: "{"): format = .jsonLines
        case UInt8(ascii: "<"): format = .gpx
        case UInt8(ascii: "$"), UInt8(ascii: "!"): format = .nmea
        case let c?:
            throw InputError(path, "not a location log: it starts with \"\(Character(Unicode.Scalar(c)))\", where JSON Lines starts with {, GPX with < and NMEA 0183 with $ or !")
        }
        var records: Records
        switch format {
        case .jsonLines: records = try readJSONLines(path)
        case .gpx: records = try GPXTrack.read(data, path: path)
        case .nmea: records = try NMEASentences.read(Data(text), path: path)
        }
        guard !records.fixes.isEmpty else { throw InputError(path, "no location fix (\(records.whyNoFix))") }
        if format != .jsonLines {
            let start = min(records.fixes.map(\.time).min()!, records.headings.map(\.time).min() ?? .infinity)
            records.shift(by: -start)
        }
        records.shift(by: offset)
        var warnings = records.warnings.map { "\(path): \($0)" }
        if !records.fixes.isSorted(by: \.time) {
            records.fixes.sort { $0.time < $1.time }
            warnings.append("\(path): fixes out of time order: sorted")
        }
        if !records.headings.isSorted(by: \.time) {
            records.headings.sort { $0.time < $1.time }
            warnings.append("\(path): compass headings out of time order: sorted")
        }
        if records.headings.isEmpty {
            warnings.append("\(path): no compass heading: the log gives positions only, so the direction the camera looks must come from elsewhere")
        }
        return Contents(path: path, format: format, log: LocationLog(fixes: records.fixes, headings: records.headings),
                        warnings: warnings)
    }

    /// Writes `log` as JSON Lines (`location.jsonl`), atomically: one line per fix, per compass
    /// reading, or per fix and reading of the same time, in time order, keys in a fixed order
    /// (`time`, then the fix's, then the heading's) and numbers in their shortest exact decimal
    /// form, so the same log gives the same bytes. Unknown values are written as -1. Throws for a
    /// fix or heading that the reader would refuse (coordinates beyond their ranges, numbers
    /// that are not finite).
    public static func writeJSONLines(_ log: LocationLog, to path: String) throws {
        for (k, fix) in log.fixes.enumerated() {
            let numbers = [fix.time, fix.horizontalAccuracy, fix.verticalAccuracy, fix.course, fix.speed]
            guard fix.coordinate.isValid, numbers.allSatisfy(\.isFinite) else {
                throw InputError(path, "cannot write fix \(k + 1) (time \(fix.time)): coordinate beyond its range or a number not finite")
            }
        }
        for (k, h) in log.headings.enumerated() {
            guard h.time.isFinite, (0..<360).contains(h.heading), h.headingAccuracy.isFinite else {
                throw InputError(path, "cannot write heading \(k + 1) (time \(h.time)): heading beyond 0..<360° or a number not finite")
            }
        }
        let fixes = log.fixes.sorted { $0.time < $1.time }
        let headings = log.headings.sorted { $0.time < $1.time }
        let file = try AtomicFile(destination: path)
        var i = 0, j = 0
        while i < fixes.count || j < headings.count {
            var fields: [(String, Double)]
            let takeFix = j == headings.count || (i < fixes.count && fixes[i].time <= headings[j].time)
            if takeFix {
                let f = fixes[i]
                fields = [("time", f.time), ("latitude", f.coordinate.latitude), ("longitude", f.coordinate.longitude),
                          ("altitude", f.coordinate.altitude), ("horizontalAccuracy", unknownAsMinusOne(f.horizontalAccuracy)),
                          ("verticalAccuracy", unknownAsMinusOne(f.verticalAccuracy)), ("course", unknownAsMinusOne(f.course)),
                          ("speed", unknownAsMinusOne(f.speed))]
                i += 1
            } else {
                fields = [("time", headings[j].time)]
            }
            if j < headings.count, headings[j].time == fields[0].1 {
                fields += [("heading", headings[j].heading), ("headingAccuracy", unknownAsMinusOne(headings[j].headingAccuracy))]
                j += 1
            }
            let line = "{" + fields.map { "\"\($0.0)\":\(jsonNumber($0.1))" }.joined(separator: ",") + "}\n"
            try file.write(Data(line.utf8))
        }
        try file.commit()
    }

    /// Fixes and headings as a format's reader found them, before the common checks.
    struct Records {
        var fixes: [LocationFix] = []
        var headings: [HeadingReading] = []
        /// Without the path (added by `read`).
        var warnings: [String] = []
        /// Why there is no fix, when there is none: what the file held instead (set by each reader).
        var whyNoFix = ""

        mutating func shift(by seconds: Double) {
            for k in fixes.indices { fixes[k].time += seconds }
            for k in headings.indices { headings[k].time += seconds }
        }
    }

    /// A decimal number as the formats write it: `Double("nan")`, `Double("0x1p3")` and the
    /// like are refused, as are values that are not finite.
    static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }

    private struct Line: Decodable {
        let time: Double
        let latitude: Double?
        let longitude: Double?
        let altitude: Double?
        let horizontalAccuracy: Double?
        let verticalAccuracy: Double?
        let course: Double?
        let speed: Double?
        let heading: Double?
        let headingAccuracy: Double?
    }

    private static func readJSONLines(_ path: String) throws -> Records {
        var records = Records()
        _ = try JSONLines.read(Line.self, contentsOf: path) { line in
            switch (line.latitude, line.longitude) {
            case let (latitude?, longitude?):
                if let problem = GeoCoordinate(latitude: latitude, longitude: longitude).problem { throw JSONLines.LineProblem(problem) }
                records.fixes.append(LocationFix(
                    time: line.time, coordinate: GeoCoordinate(latitude: latitude, longitude: longitude, altitude: line.altitude ?? 0),
                    horizontalAccuracy: unknownAsMinusOne(line.horizontalAccuracy),
                    // An accuracy of an altitude the line does not give means nothing.
                    verticalAccuracy: line.altitude == nil ? -1 : unknownAsMinusOne(line.verticalAccuracy),
                    course: unknownAsMinusOne(line.course), speed: unknownAsMinusOne(line.speed)))
            case (nil, nil):
                guard line.heading != nil else {
                    throw JSONLines.LineProblem("neither a fix (latitude and longitude) nor a compass reading (heading)")
                }
            default:
                throw JSONLines.LineProblem("\(line.latitude == nil ? "longitude without latitude" : "latitude without longitude")")
            }
            if let heading = line.heading {
                // Core Location's trueHeading is negative when invalid: a line with no reading.
                guard heading >= 0 else { return }
                guard heading <= 360 else { throw JSONLines.LineProblem("heading \(heading) is beyond 360°") }
                records.headings.append(HeadingReading(time: line.time, heading: heading == 360 ? 0 : heading,
                                                       headingAccuracy: unknownAsMinusOne(line.headingAccuracy)))
            }
        }
        records.whyNoFix = "the lines hold compass headings only"
        return records
    }

    static func unknownAsMinusOne(_ value: Double?) -> Double {
        guard let value, value >= 0 else { return -1 }
        return value
    }

    /// Swift's shortest round-trip form, which is valid JSON for finite numbers ("1.0", "1e-05").
    private static func jsonNumber(_ value: Double) -> String { value.description }
}

/// Absolute UTC times of GPX and NMEA, as seconds since 1970-01-01 00:00 UTC (proleptic Gregorian
/// calendar, no leap seconds: only differences matter).
enum UTCTime {
    /// Seconds at the start of the day, or nil for a date that does not exist.
    static func seconds(year: Int, month: Int, day: Int) -> Double? {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day) else { return nil }
        // Days from the civil date (H. Hinnant's algorithm): years start in March, so that the
        // leap day comes last.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Double(era * 146097 + dayOfEra - 719468) * 86400
    }

    /// An ISO 8601 date and time as GPX writes it, `2024-05-01T12:00:00Z`, with optional
    /// fractional seconds and a `Z` or `±hh:mm` (or `±hhmm`, `±hh`) zone; without a zone the
    /// time is UTC, as GPX requires.
    static func iso8601(_ text: Substring) -> Double? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count, b[i..<(i + n)].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            defer { i += n }
            return b[i..<(i + n)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func skip(_ allowed: String) -> Bool {
            guard i < b.count, allowed.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), skip("-"), let month = digits(2), skip("-"), let day = digits(2), skip("Tt "),
              let hour = digits(2), hour < 24, skip(":"), let minute = digits(2), minute < 60, skip(":"),
              let second = digits(2), second < 61, let midnight = seconds(year: year, month: month, day: day) else { return nil }
        var fraction = 0.0
        if skip(".") {
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > start, let f = Double("0." + String(decoding: b[start..<i], as: UTF8.self)) else { return nil }
            fraction = f
        }
        var zone = 0
        if i < b.count, !skip("Zz") {
            let sign: Int
            if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
            guard let h = digits(2), h <= 14 else { return nil }
            _ = skip(":")
            let m = i < b.count ? digits(2) : 0
            guard let m, m < 60 else { return nil }
            zone = sign * (h * 3600 + m * 60)
        }
        guard i == b.count else { return nil }
        return midnight + Double(hour * 3600 + minute * 60 + second - zone) + fraction
    }
}

extension Array {
    fileprivate func isSorted(by key: (Element) -> Double) -> Bool {
        zip(self, dropFirst()).allSatisfy { key($0) <= key($1) }
    }
}
