import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        // Foundation on Linux parses in libxml2's recovery mode: parse() may succeed past errors,
        // which only the delegate hears of.
        let succeeded = parser.parse()
        if let failure = reader.failure ?? (succeeded ? nil : (parser.lineNumber, (parser.parserError as NSError?)?.code ?? 0)) {
            throw InputError(path, "line \(failure.line): malformed XML (libxml2 error \(failure.code))")
        }
        guard reader.root == "gpx" else { throw InputError(path, "not a GPX file: the root element is <\(reader.root ?? "")>") }
        let trackPoints = reader.points.filter { $0.element == "trkpt" }
        let points = trackPoints.isEmpty ? reader.points.filter { $0.children["time"] != nil } : trackPoints
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
            if let p = LocationLogFile.problem(latitude: latitude, longitude: longitude, altitude: altitude ?? 0) { throw problem(p) }
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

    /// Collects the points' attributes and children; the checks come after the parse, where
    /// they can throw.
    private final class Reader: NSObject, XMLParserDelegate {
        static let pointElements: Set<String> = ["trkpt", "rtept", "wpt"]
        static let childElements: Set<String> = ["time", "ele", "geoidheight", "hdop", "vdop", "course", "speed"]

        var root: String?
        var points: [Point] = []
        /// The first XML error: where, and libxml2's code for it.
        var failure: (line: Int, code: Int)?
        private var current: Point?
        private var depth = 0
        private var pointDepth = 0
        private var child: String?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            depth += 1
            let name = Self.localName(elementName)
            if depth == 1 { root = name }
            if current == nil, Self.pointElements.contains(name) {
                current = Point(line: parser.lineNumber, element: name, latitude: attributes["lat"], longitude: attributes["lon"])
                pointDepth = depth
            } else if current != nil, depth == pointDepth + 1, Self.childElements.contains(name) {
                child = name
                text = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if child != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if let name = child, depth == pointDepth + 1 {
                current?.children[name] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                child = nil
            } else if depth == pointDepth, let point = current {
                points.append(point)
                current = nil
            }
            depth -= 1
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if failure == nil { failure = (parser.lineNumber, (parseError as NSError).code) }
            parser.abortParsing()
        }

        /// `gpx:trkpt` → `trkpt`: GPX written with a namespace prefix.
        private static func localName(_ name: String) -> String {
            name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
        }
    }
}
