import Foundation
import AnchorKit

/// The fixes of a GPX file (1.0 or 1.1) for ``LocationLogFile``: its track points (`trkpt`), or,
/// when it has none, its route points and waypoints that have a `time` (waypoints beside a track
/// are places of interest, not where the receiver was).
///
/// A point gives `lat` and `lon` (attributes, degrees WGS84), `time` (ISO 8601, UTC; needed on a
/// track point), and optionally `ele` (metres), `geoidheight` (metres of the geoid above the
/// ellipsoid: the altitude is `ele + geoidheight`, the ellipsoid height FORMATS.md asks for;
/// without it `ele` is taken as that height, with a warning, as writers usually give heights above
/// mean sea level), `hdop` and `vdop` (accuracy = DOP × 5 m, an assumed error per unit of dilution
/// typical of consumer receivers) and GPX 1.0's `course` (degrees) and `speed` (m/s). Times are
/// absolute (seconds since 1970); `LocationLogFile` makes them seconds of the video.
enum GPXTrack {
    /// Metres of 1 σ position error per unit of HDOP or VDOP (assumed).
    static let metresPerDOP = 5.0

    static func read(_ data: Data, path: String) throws -> LocationLogFile.Records {
        let scanned: (root: String, points: [Point])
        do { scanned = try scan(data) } catch { throw InputError(path, "line \(error.line): malformed XML: \(error.problem)") }
        guard scanned.root == "gpx" else { throw InputError(path, "not a GPX file: the root element is <\(scanned.root)>") }
        let trackPoints = scanned.points.filter { $0.element == "trkpt" }
        let points = trackPoints.isEmpty ? scanned.points.filter { $0.children["time"] != nil } : trackPoints
        var records = LocationLogFile.Records()
        records.whyNoFix = "no trkpt, and no rtept or wpt with a time"
        var heightsAboveSeaLevel = 0
        for point in points {
            func problem(_ text: String) -> InputError { InputError(path, "line \(point.line): \(point.element): \(text)") }
            func value(_ name: String, _ text: String?) throws -> Double? {
                guard let text else { return nil }
                guard let v = LocationLogFile.number(text[...]) else { throw problem("\(name) \"\(text)\" is not a finite number") }
                return v
            }
            guard let latitude = try value("lat", point.latitude) else { throw problem("no lat attribute") }
            guard let longitude = try value("lon", point.longitude) else { throw problem("no lon attribute") }
            guard let timeText = point.children["time"] else { throw problem("no time") }
            guard let time = UTCTime.iso8601(timeText[...]) else {
                throw problem("time \"\(timeText)\" is not an ISO 8601 date and time (2024-05-01T12:00:00Z)")
            }
            let elevation = try value("ele", point.children["ele"])
            let geoidHeight = try value("geoidheight", point.children["geoidheight"])
            if elevation != nil, geoidHeight == nil { heightsAboveSeaLevel += 1 }
            let altitude = elevation.map { $0 + (geoidHeight ?? 0) }
            if let p = GeoCoordinate(latitude: latitude, longitude: longitude, altitude: altitude ?? 0).problem { throw problem(p) }
            let hdop = try value("hdop", point.children["hdop"])
            let vdop = try value("vdop", point.children["vdop"])
            records.fixes.append(LocationFix(
                time: time, coordinate: GeoCoordinate(latitude: latitude, longitude: longitude, altitude: altitude ?? 0),
                horizontalAccuracy: LocationLogFile.unknownAsMinusOne(hdop.map { $0 * metresPerDOP }),
                verticalAccuracy: altitude == nil ? -1 : LocationLogFile.unknownAsMinusOne(vdop.map { $0 * metresPerDOP }),
                course: LocationLogFile.unknownAsMinusOne(try value("course", point.children["course"])),
                speed: LocationLogFile.unknownAsMinusOne(try value("speed", point.children["speed"]))))
        }
        if heightsAboveSeaLevel > 0 {
            records.warnings.append("points with an ele but no geoidheight: \(heightsAboveSeaLevel) of \(points.count) (their ele is taken "
                                    + "as the height above the WGS84 ellipsoid, though GPX writers usually give it above mean sea level, up to ±100 m apart)")
        }
        return records
    }

    /// A point element as written, its numbers still text.
    struct Point {
        let line: Int
        let element: String
        let latitude: String?
        let longitude: String?
        /// The text of the point's own child elements that are read (not those of its extensions).
        var children: [String: String] = [:]
    }

    private static let pointElements: Set<String> = ["trkpt", "rtept", "wpt"]
    private static let childElements: Set<String> = ["time", "ele", "geoidheight", "hdop", "vdop", "course", "speed"]

    private struct Malformed: Error {
        let line: Int
        let problem: String
    }

    /// The root element's name and the points, read by a scanner of the XML that GPX writers
    /// write rather than by Foundation's XMLParser, whose library (with libxml2) every program
    /// linking AnchorKitMedia would load at start-up. It reads elements, attributes (in either
    /// quotes), comments, CDATA, the XML declaration and other processing instructions, and a
    /// DOCTYPE without an internal subset; it checks what decides which points there are: tags
    /// closed in order, one root element, quoted attributes given once. The text of elements that
    /// are not read is not looked into, so an entity there that XML does not define is no error.
    /// Names lose their namespace prefix: `gpx:trkpt` is a `trkpt`.
    private static func scan(_ data: Data) throws(Malformed) -> (root: String, points: [Point]) {
        var s = Cursor(data)
        var open: [(name: String, line: Int)] = []
        var root: String?
        var points: [Point] = []
        var point: Point?
        var pointDepth = 0
        var child: String?
        var text = ""

        func close() {
            if let name = child, open.count == pointDepth + 1 {
                point?.children[name] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                child = nil
            } else if open.count == pointDepth, let p = point {
                points.append(p)
                point = nil
            }
            open.removeLast()
        }
        // At the end of the file, the line where the tag starts is the one to look at.
        func unexpected(in tag: String, from line: Int) -> Malformed {
            guard let b = s.peek else { return Malformed(line: line, problem: "end of file inside \(tag)") }
            return Malformed(line: s.line, problem: "unexpected \(Character(Unicode.Scalar(b)).debugDescription) in \(tag)")
        }

        while !s.atEnd {
            let line = s.line
            guard s.skip("<") else {
                let run = s.take { $0 == UInt8(ascii: "<") }
                if child != nil {
                    text += decoded(run)
                } else if open.isEmpty, run.contains(where: { !Cursor.isSpace($0) }) {
                    throw Malformed(line: line, problem: "text outside the root element")
                }
                continue
            }
            if s.skip("!--") {
                guard s.take(past: "-->") != nil else { throw Malformed(line: line, problem: "end of file inside a comment") }
            } else if s.skip("![CDATA[") {
                guard let cdata = s.take(past: "]]>") else { throw Malformed(line: line, problem: "end of file inside CDATA") }
                if child != nil { text += String(decoding: cdata, as: UTF8.self) }
            } else if s.skip("?") {
                guard s.take(past: "?>") != nil else { throw Malformed(line: line, problem: "end of file inside <?") }
            } else if s.skip("!") {
                guard s.take(past: ">") != nil else { throw Malformed(line: line, problem: "end of file inside <!") }
            } else if s.skip("/") {
                let name = s.name()
                guard let top = open.last else { throw Malformed(line: line, problem: "</\(name)> closes no element") }
                guard top.name == name else {
                    throw Malformed(line: line, problem: "</\(name)> where </\(top.name)> (opened on line \(top.line)) was expected")
                }
                s.skipSpace()
                guard s.skip(">") else { throw unexpected(in: "</\(name)", from: line) }
                close()
            } else {
                let name = s.name()
                guard !name.isEmpty else { throw unexpected(in: "a tag", from: line) }
                guard root == nil || !open.isEmpty else { throw Malformed(line: line, problem: "a second root element <\(name)>") }
                var attributes: [String: String] = [:]
                var empty = false
                while true {
                    s.skipSpace()
                    if s.skip(">") { break }
                    if s.skip("/>") {
                        empty = true
                        break
                    }
                    let attribute = s.name()
                    s.skipSpace()
                    guard !attribute.isEmpty, s.skip("=") else { throw unexpected(in: "<\(name)", from: line) }
                    s.skipSpace()
                    guard let quote = s.peek, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                        throw unexpected(in: "<\(name)", from: line)
                    }
                    _ = s.skip(quote)
                    // A < ends the value too: a missing quote is reported near where it is missing.
                    let value = s.take { $0 == quote || $0 == UInt8(ascii: "<") }
                    guard s.skip(quote) else { throw unexpected(in: "<\(name)", from: line) }
                    guard attributes.updateValue(decoded(value), forKey: attribute) == nil else {
                        throw Malformed(line: line, problem: "attribute \(attribute) given twice in <\(name)>")
                    }
                }
                open.append((name, line))
                let local = name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
                if open.count == 1 { root = local }
                if point == nil, pointElements.contains(local) {
                    point = Point(line: line, element: local, latitude: attributes["lat"], longitude: attributes["lon"])
                    pointDepth = open.count
                } else if point != nil, open.count == pointDepth + 1, childElements.contains(local) {
                    child = local
                    text = ""
                }
                if empty { close() }
            }
        }
        if let top = open.last { throw Malformed(line: top.line, problem: "<\(top.name)> is never closed") }
        guard let root else { throw Malformed(line: s.line, problem: "no root element") }
        return (root, points)
    }

    private static let entities = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]

    /// Text with XML's five entities and character references replaced. Anything else after an &
    /// is kept as written: in a number, it makes the number unreadable, which is reported as such.
    private static func decoded(_ bytes: ArraySlice<UInt8>) -> String {
        var rest = String(decoding: bytes, as: UTF8.self)[...]
        var text = ""
        while let amp = rest.firstIndex(of: "&"), let semicolon = rest[amp...].firstIndex(of: ";") {
            let name = rest[rest.index(after: amp)..<semicolon]
            let code = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
            text += rest[..<amp]
            text += entities[String(name)] ?? code.flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? String(rest[amp...semicolon])
            rest = rest[rest.index(after: semicolon)...]
        }
        return text + rest
    }

    /// A position in a file's bytes, and its line.
    private struct Cursor {
        private let bytes: [UInt8]
        private var i = 0
        private(set) var line = 1

        init(_ data: Data) {
            bytes = Array(data)
            // A byte order mark, as Windows tools write, is not text.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        var atEnd: Bool { i == bytes.count }
        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

        /// The bytes up to the first for which `stop` holds, or to the end.
        mutating func take(until stop: (UInt8) -> Bool) -> ArraySlice<UInt8> {
            let start = i
            while i < bytes.count, !stop(bytes[i]) {
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
            return bytes[start..<i]
        }

        /// The bytes up to the next `end`, moving past it; nil if the file ends first.
        mutating func take(past end: String) -> ArraySlice<UInt8>? {
            let start = i
            while true {
                _ = take { $0 == end.utf8.first }
                guard !atEnd else { return nil }
                let found = i
                if skip(end) { return bytes[start..<found] }
                i += 1 // end's first byte (not a newline) alone
            }
        }

        /// Moves past `text` (without a newline) if it comes next.
        mutating func skip(_ text: String) -> Bool {
            guard bytes[i...].starts(with: text.utf8) else { return false }
            i += text.utf8.count
            return true
        }

        /// Moves past `byte` (not a newline) if it comes next.
        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            i += 1
            return true
        }

        /// An element or attribute name: the bytes up to a space or markup.
        mutating func name() -> String {
            String(decoding: take { Self.isSpace($0) || "<>/='\"?!".utf8.contains($0) }, as: UTF8.self)
        }

        mutating func skipSpace() { _ = take { !Self.isSpace($0) } }
    }
}
