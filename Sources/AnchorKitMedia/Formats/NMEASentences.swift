import Foundation
import AnchorKit

/// The fixes and headings of an NMEA 0183 log for ``LocationLogFile``: one sentence per line, any
/// talker (GP, GN, GL, GA, ...).
///
/// - RMC: time, status (V: no fix, skipped), latitude and longitude, speed (knots, read as m/s),
///   course (degrees from true north), date.
/// - GGA: time, latitude and longitude, fix quality (0: no fix, skipped), HDOP (horizontal
///   accuracy = HDOP × 5 m, an assumed error per unit of dilution, unless a GST gives it), the
///   altitude above mean sea level plus the geoid separation (the ellipsoid height FORMATS.md
///   asks for).
/// - GST: the standard deviations of latitude and longitude error (metres), combined as their RMS,
///   √((σlat² + σlon²) / 2), the 1 σ error along each horizontal axis, and that of altitude.
/// - HDT: true heading (degrees), at the time of the last sentence before it that had one (of the
///   first that has one, for those before it).
///
/// RMC, GGA and GST sentences of the same time make one fix. A sentence with a checksum (`*hh`)
/// that does not match is skipped, with a warning; other sentences (GSA, GSV, VTG, proprietary
/// `$P...`, AIS `!...`) are ignored. GGA and GST carry no date: each takes the day that puts it
/// nearest the sentence before it (for those before the first RMC, the day that puts them nearest
/// it), so a log may run across midnight. Times are absolute (seconds since 1970, or since the start of the
/// log's first day when no RMC gives a date); `LocationLogFile` makes them seconds of the video.
enum NMEASentences {
    /// Metres of 1 σ horizontal error per unit of HDOP (assumed).
    static let metresPerHDOP = 5.0
    static let metresPerSecondPerKnot = 1852.0 / 3600

    static func read(_ data: Data, path: String) throws -> LocationLogFile.Records {
        var sentences: [Sentence] = []
        var valid = 0
        var badChecksums: [Int] = []
        // By newline characters: "\r\n" is one Character, which splitting at "\n" would not find.
        for (k, raw) in String(decoding: data, as: UTF8.self)
            .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = k + 1
            let line = raw.trimmingCharacters(in: .whitespaces.union(.newlines))
            guard let start = line.first else { continue }
            guard start == "$" || start == "!" else {
                throw InputError(path, "line \(lineNumber): not an NMEA 0183 sentence (it starts with neither $ nor !)")
            }
            var body = line.dropFirst()
            if let star = body.lastIndex(of: "*") {
                let checksum = body[body.index(after: star)...]
                body = body[..<star]
                guard checksum.count == 2, let expected = UInt8(checksum, radix: 16),
                      body.utf8.reduce(UInt8(0), ^) == expected else {
                    badChecksums.append(lineNumber)
                    continue
                }
            }
            valid += 1
            let fields = body.split(separator: ",", omittingEmptySubsequences: false)
            let address = fields[0]
            guard start == "$", address.count == 5, !address.hasPrefix("P") else { continue }
            do {
                if let s = try Sentence(type: address.suffix(3), fields: fields) { sentences.append(s) }
            } catch let problem as Problem {
                throw InputError(path, "line \(lineNumber): \(address): \(problem.message)")
            }
        }
        var records = assemble(sentences)
        if !badChecksums.isEmpty {
            records.warnings.append("NMEA sentences with a bad checksum skipped: \(badChecksums.count) (the first on line \(badChecksums[0]))")
            if valid == 0 { records.whyNoFix = "no sentence with a valid checksum: \(badChecksums.count) bad" }
        }
        return records
    }

    /// Places the sentences in time, merges those of one time into a fix, and gives headings the
    /// time of the last timed sentence.
    private static func assemble(_ sentences: [Sentence]) -> LocationLogFile.Records {
        var records = LocationLogFile.Records()
        let anchor = sentences.first { $0.date != nil && $0.timeOfDay != nil } ?? sentences.first { $0.timeOfDay != nil }
        guard let anchor else {
            records.whyNoFix = "no RMC or GGA sentence with a time"
            return records
        }
        var reference = absoluteTime(anchor, near: anchor.timeOfDay!)
        var merged: [Int64: Merged] = [:]
        var order: [Int64] = []
        var withoutFix = 0
        for sentence in sentences {
            if sentence.timeOfDay != nil { reference = absoluteTime(sentence, near: reference) }
            // Milliseconds: the finest a receiver writes, and a key the same text always gives.
            let key = Int64((reference * 1000).rounded())
            switch sentence.content {
            case .heading(let heading):
                records.headings.append(HeadingReading(time: reference, heading: heading))
                continue
            case .noFix:
                withoutFix += 1
                continue
            default: break
            }
            if merged[key] == nil { order.append(key); merged[key] = Merged(time: reference) }
            merged[key]!.add(sentence.content)
        }
        var heightsAboveSeaLevel = 0
        for key in order {
            guard let fix = merged[key]!.fix else { continue }
            records.fixes.append(fix)
            if merged[key]!.altitudeAboveSeaLevel { heightsAboveSeaLevel += 1 }
        }
        if heightsAboveSeaLevel > 0 {
            records.warnings.append("GGA sentences without a geoid separation: \(heightsAboveSeaLevel) (their altitudes are "
                                    + "above mean sea level, not the WGS84 ellipsoid)")
        }
        records.whyNoFix = withoutFix > 0 ? "RMC or GGA sentences reporting no fix (status V or quality 0): \(withoutFix)"
                                          : "no RMC or GGA sentence"
        return records
    }

    /// A sentence's time: its date's when it has one, otherwise the day that puts it within
    /// 12 hours of `reference`.
    private static func absoluteTime(_ sentence: Sentence, near reference: Double) -> Double {
        let timeOfDay = sentence.timeOfDay!
        if let date = sentence.date { return date + timeOfDay }
        return ((reference - timeOfDay) / 86400).rounded() * 86400 + timeOfDay
    }

    struct Problem: Error { let message: String; init(_ message: String) { self.message = message } }

    /// What one sentence says.
    enum Content {
        case rmc(latitude: Double, longitude: Double, speed: Double, course: Double)
        case gga(latitude: Double, longitude: Double, altitude: Double?, separation: Double?, hdop: Double?)
        case gst(horizontal: Double?, vertical: Double?)
        case heading(Double)
        /// An RMC or GGA sentence without a fix: its time still places the headings after it.
        case noFix
    }

    struct Sentence {
        /// Seconds since midnight UTC.
        let timeOfDay: Double?
        /// Seconds since 1970 at the start of the day (RMC only).
        let date: Double?
        let content: Content

        /// Parses the fields of a sentence read here; nil for other types, and for HDT and GST
        /// sentences without a value (as receivers write while they have none).
        init?(type: Substring, fields: [Substring]) throws {
            func field(_ i: Int) -> Substring { i < fields.count ? fields[i] : "" }
            func number(_ i: Int, _ name: String) throws -> Double? {
                guard !field(i).isEmpty else { return nil }
                guard let v = LocationLogFile.number(field(i)) else { throw Problem("\(name) \"\(field(i))\" is not a number") }
                return v
            }
            func time() throws -> Double? {
                let t = field(1)
                guard !t.isEmpty else { return nil }
                guard t.count >= 6, let h = Int(t.prefix(2)), let m = Int(t.dropFirst(2).prefix(2)),
                      let s = LocationLogFile.number(t.dropFirst(4)), (0..<24).contains(h), (0..<60).contains(m), (0..<61).contains(s)
                else { throw Problem("time \"\(t)\" is not hhmmss.ss") }
                return Double(h * 3600 + m * 60) + s
            }
            func coordinate(_ i: Int) throws -> (latitude: Double, longitude: Double) {
                func angle(_ text: Substring, _ hemisphere: Substring, _ name: String, _ positive: String, _ negative: String) throws -> Double {
                    guard let v = LocationLogFile.number(text), v >= 0 else { throw Problem("\(name) \"\(text)\" is not a number") }
                    let degrees = (v / 100).rounded(.down)
                    let minutes = v - degrees * 100
                    guard minutes < 60 else { throw Problem("\(name) \"\(text)\" has \(minutes) minutes") }
                    switch hemisphere {
                    case positive[...]: return degrees + minutes / 60
                    case negative[...]: return -(degrees + minutes / 60)
                    default: throw Problem("\(name) hemisphere \"\(hemisphere)\" is neither \(positive) nor \(negative)")
                    }
                }
                let latitude = try angle(field(i), field(i + 1), "latitude", "N", "S")
                let longitude = try angle(field(i + 2), field(i + 3), "longitude", "E", "W")
                if let p = GeoCoordinate(latitude: latitude, longitude: longitude).problem { throw Problem(p) }
                return (latitude, longitude)
            }
            switch type {
            case "RMC":
                timeOfDay = try time()
                date = try Self.date(field(9))
                // NMEA 2.3's mode indicator N also means no fix.
                guard field(2) == "A", field(12) != "N" else { content = .noFix; return }
                guard timeOfDay != nil else { throw Problem("a fix without a time") }
                let (latitude, longitude) = try coordinate(3)
                content = .rmc(latitude: latitude, longitude: longitude,
                               speed: LocationLogFile.unknownAsMinusOne(try number(7, "speed").map { $0 * metresPerSecondPerKnot }),
                               course: LocationLogFile.unknownAsMinusOne(try number(8, "course")))
            case "GGA":
                timeOfDay = try time()
                date = nil
                guard let quality = try number(6, "fix quality") else { throw Problem("no fix quality") }
                guard quality != 0 else { content = .noFix; return }
                guard timeOfDay != nil else { throw Problem("a fix without a time") }
                let (latitude, longitude) = try coordinate(2)
                let altitude = try number(9, "altitude"), separation = try number(11, "geoid separation")
                content = .gga(latitude: latitude, longitude: longitude, altitude: altitude, separation: separation,
                               hdop: try number(8, "HDOP"))
            case "GST":
                guard let t = try time() else { return nil }
                let (sigmaLatitude, sigmaLongitude) = (try number(6, "latitude σ"), try number(7, "longitude σ"))
                let horizontal = sigmaLatitude.flatMap { a in sigmaLongitude.map { b in ((a * a + b * b) / 2).squareRoot() } }
                let vertical = try number(8, "altitude σ")
                guard horizontal != nil || vertical != nil else { return nil }
                timeOfDay = t
                date = nil
                content = .gst(horizontal: horizontal, vertical: vertical)
            case "HDT":
                guard let heading = try number(1, "heading") else { return nil }
                guard (0...360).contains(heading) else { throw Problem("heading \(heading) is beyond 0-360°") }
                timeOfDay = nil
                date = nil
                content = .heading(heading == 360 ? 0 : heading)
            default:
                return nil
            }
        }

        /// ddmmyy; two-digit years from 80 are 19yy, the others 20yy (GPS began in 1980).
        private static func date(_ text: Substring) throws -> Double? {
            guard !text.isEmpty else { return nil }
            guard text.count == 6, text.allSatisfy(\.isASCII), let d = Int(text.prefix(2)), let m = Int(text.dropFirst(2).prefix(2)),
                  let y = Int(text.suffix(2)), let start = UTCTime.seconds(year: y >= 80 ? 1900 + y : 2000 + y, month: m, day: d)
            else { throw Problem("date \"\(text)\" is not ddmmyy") }
            return start
        }
    }

    /// The RMC, GGA and GST sentences of one time.
    private struct Merged {
        let time: Double
        var rmc: (latitude: Double, longitude: Double, speed: Double, course: Double)?
        var gga: (latitude: Double, longitude: Double, altitude: Double?, separation: Double?, hdop: Double?)?
        var gst: (horizontal: Double?, vertical: Double?)?

        mutating func add(_ content: Content) {
            switch content {
            case let .rmc(latitude, longitude, speed, course): rmc = (latitude, longitude, speed, course)
            case let .gga(latitude, longitude, altitude, separation, hdop): gga = (latitude, longitude, altitude, separation, hdop)
            case let .gst(horizontal, vertical): gst = (horizontal, vertical)
            case .heading, .noFix: break
            }
        }

        var altitudeAboveSeaLevel: Bool { gga?.altitude != nil && gga?.separation == nil }

        /// Nil for a GST without an RMC or GGA of its time.
        var fix: LocationFix? {
            guard let position = gga.map({ ($0.latitude, $0.longitude) }) ?? rmc.map({ ($0.latitude, $0.longitude) }) else { return nil }
            let altitude = gga?.altitude.map { $0 + (gga?.separation ?? 0) }
            return LocationFix(
                time: time, coordinate: GeoCoordinate(latitude: position.0, longitude: position.1, altitude: altitude ?? 0),
                horizontalAccuracy: LocationLogFile.unknownAsMinusOne(gst?.horizontal ?? gga?.hdop.map { $0 * metresPerHDOP }),
                verticalAccuracy: altitude == nil ? -1 : LocationLogFile.unknownAsMinusOne(gst?.vertical),
                course: rmc?.course ?? -1, speed: rmc?.speed ?? -1)
        }
    }
}
