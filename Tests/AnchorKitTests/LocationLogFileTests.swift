import Foundation
import Testing
import AnchorKit
@testable import AnchorKitMedia

/// Location logs beside a video (`LocationLogFile`): NMEA 0183, GPX and JSON Lines read into one
/// `LocationLog` in seconds of the video, the JSON Lines writer, and the one-line errors and
/// warnings for bad logs.
@Suite("Location log files")
struct LocationLogFileTests {
    /// A sentence with its checksum.
    static func nmea(_ body: String) -> String {
        "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^))
    }

    /// The classic RMC and GGA pair (checksums as published: 6A and 47) make one fix at 48°07.038'
    /// N, 11°31.000' E: altitude 545.4 m above sea level + 46.9 m of geoid, 22.4 knots, HDOP 0.9;
    /// the HDT after them is a heading of their time; times start at the offset.
    @Test func nmeaRMCAndGGAMakeOneFix() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("location.nmea", """
            $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A
            $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
            $GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39
            \(Self.nmea("GPHDT,274.07,T"))
            \(Self.nmea("GPRMC,123520,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
            \(Self.nmea("GPGST,123520,0.006,0.023,0.020,273.6,0.3,0.4,0.5"))

            """)
        let contents = try LocationLogFile.read(contentsOf: path, offset: 10)
        #expect(contents.format == .nmea)
        #expect(contents.warnings.isEmpty, "\(contents.warnings)")
        let fixes = contents.log.fixes
        try #require(fixes.count == 2)
        #expect(fixes.map(\.time) == [10, 11])
        #expect(abs(fixes[0].coordinate.latitude - 48.1173) < 1e-9)
        #expect(abs(fixes[0].coordinate.longitude - (11 + 31.0 / 60)) < 1e-9)
        #expect(abs(fixes[0].coordinate.altitude - (545.4 + 46.9)) < 1e-9)
        #expect(abs(fixes[0].speed - 22.4 * 1852 / 3600) < 1e-9)
        #expect(fixes[0].course == 84.4)
        #expect(abs(fixes[0].horizontalAccuracy - 4.5) < 1e-12)
        #expect(fixes[0].verticalAccuracy == -1)
        // RMC alone: no altitude; GST's σ: the RMS of latitude's and longitude's.
        #expect(fixes[1].coordinate.altitude == 0)
        #expect(abs(fixes[1].horizontalAccuracy - (0.125).squareRoot()) < 1e-12)
        #expect(fixes[1].verticalAccuracy == -1)
        #expect(contents.log.headings == [HeadingReading(time: 10, heading: 274.07)])
    }

    /// GGA has no date: a log across midnight keeps counting up, whether the day comes from an
    /// RMC or not; talkers other than GP are read.
    @Test func nmeaAcrossMidnight() throws {
        let folder = TemporaryFolder("location")
        let withDates = try folder.write("a.nmea", [
            "GNGGA,235959.50,4807.038,S,01131.000,W,4,12,0.6,10.0,M,-2.0,M,,",
            "GNRMC,235959.50,A,4807.038,S,01131.000,W,0.0,,311299,,",
            "GNGGA,000000.50,4807.038,S,01131.000,W,4,12,0.6,10.0,M,-2.0,M,,",
            "GNRMC,000000.50,A,4807.038,S,01131.000,W,0.0,,010100,,",
            "GNGGA,000001.50,4807.038,S,01131.000,W,4,12,0.6,10.0,M,-2.0,M,,",
        ].map(Self.nmea).joined(separator: "\n"))
        let fixes = try LocationLogFile.read(contentsOf: withDates).log.fixes
        #expect(fixes.map(\.time) == [0, 1, 2])
        #expect(fixes.allSatisfy { $0.coordinate.latitude < -48 && $0.coordinate.longitude < -11 && $0.coordinate.altitude == 8 })
        #expect(fixes[0].speed == 0 && fixes[0].course == -1 && fixes[2].speed == -1)

        let ggaOnly = try folder.write("b.nmea", [
            "GAGGA,235958,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GAGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ].map(Self.nmea).joined(separator: "\r\n"))
        #expect(try LocationLogFile.read(contentsOf: ggaOnly).log.fixes.map(\.time) == [0, 2])
    }

    /// A byte order mark before the first character does not hide the format.
    @Test func byteOrderMark() throws {
        let folder = TemporaryFolder("location")
        let bom = Data([0xEF, 0xBB, 0xBF])
        let nmea = folder.file("location.nmea"), gpx = folder.file("location.gpx")
        try (bom + Data(Self.nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)).write(to: URL(fileURLWithPath: nmea))
        try (bom + Data(#"<gpx><trk><trkseg><trkpt lat="45" lon="18"><time>2024-05-01T12:00:00Z</time></trkpt></trkseg></trk></gpx>"#.utf8))
            .write(to: URL(fileURLWithPath: gpx))
        #expect(try LocationLogFile.read(contentsOf: nmea).log.fixes.count == 1)
        #expect(try LocationLogFile.read(contentsOf: gpx).log.fixes.count == 1)
    }

    /// Sentences with a bad checksum, or without a fix, are skipped; a log of nothing else has no fix.
    @Test func nmeaSkipsBadChecksumsAndNoFix() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("location.nmea", """
            $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6B
            $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
            \(Self.nmea("GPRMC,123520,V,,,,,,,230394,,"))
            \(Self.nmea("GPGGA,123520,,,,,0,00,,,M,,M,,"))
            """)
        let contents = try LocationLogFile.read(contentsOf: path)
        #expect(contents.log.fixes.count == 1)
        #expect(contents.log.fixes[0].speed == -1)
        #expect(contents.warnings.contains { $0.hasPrefix(path + ": NMEA sentences with a bad checksum skipped: 1 (the first on line 1)") })

        try "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*00\n".write(toFile: path, atomically: true, encoding: .utf8)
        expectOneLineError(containing: [path, "no location fix", "no sentence with a valid checksum"]) {
            _ = try LocationLogFile.read(contentsOf: path)
        }
        try [Self.nmea("GPRMC,123520,V,,,,,,,230394,,"), Self.nmea("GPHDT,10.0,T")].joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        expectOneLineError(containing: [path, "no location fix", "reporting no fix", ": 1"]) { _ = try LocationLogFile.read(contentsOf: path) }
    }

    /// Three track points a second apart are at 0, 1 and 2 s after the offset, whatever their time
    /// zone; altitude is ele + geoidheight, horizontal accuracy HDOP × 5 m.
    @Test func gpxTrackPoints() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("walk.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="45.0" lon="18.0"><name>cafe</name></wpt>
              <trk><name>walk</name><trkseg>
                <trkpt lat="45.5552699" lon="18.6955832"><ele>103.2</ele><time>2024-05-01T12:00:00Z</time>
                  <geoidheight>44.5</geoidheight><hdop>1.2</hdop></trkpt>
                <trkpt lat="45.5552800" lon="18.6955900">
                  <ele>103.4</ele>
                  <time>2024-05-01T14:00:01.000+02:00</time>
                  <extensions><time>1999-01-01T00:00:00Z</time></extensions>
                </trkpt>
                <trkpt lat="-45.5552900" lon="-18.6956000"><time>2024-05-01T12:00:02.5Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """)
        let contents = try LocationLogFile.read(contentsOf: path, offset: 2.5)
        #expect(contents.format == .gpx)
        let fixes = contents.log.fixes
        #expect(fixes.map(\.time) == [2.5, 3.5, 5])
        #expect(fixes[0].coordinate == GeoCoordinate(latitude: 45.5552699, longitude: 18.6955832, altitude: 103.2 + 44.5))
        #expect(abs(fixes[0].horizontalAccuracy - 6) < 1e-12)
        #expect(fixes[1].coordinate.altitude == 103.4 && fixes[1].horizontalAccuracy == -1)
        #expect(fixes[2].coordinate == GeoCoordinate(latitude: -45.55529, longitude: -18.6956) && fixes[2].verticalAccuracy == -1)
        #expect(contents.warnings.contains { $0.contains("points with an ele but no geoidheight: 1 of 3") })
        #expect(contents.warnings.contains { $0.contains("no compass heading") })

        // Without track points, waypoints with a time are the log.
        let waypoints = try folder.write("points.gpx", """
            <gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/0" version="1.0">
            <gpx:wpt lat="1" lon="2"><gpx:time>2024-05-01T12:00:00Z</gpx:time><gpx:speed>1.5</gpx:speed><gpx:course>90</gpx:course></gpx:wpt>
            <gpx:wpt lat="3" lon="4"/></gpx:gpx>
            """)
        let points = try LocationLogFile.read(contentsOf: waypoints).log.fixes
        #expect(points == [LocationFix(time: 0, coordinate: GeoCoordinate(latitude: 1, longitude: 2), course: 90, speed: 1.5)])
    }

    /// What GPX writers write besides points: the declaration, comments (one hiding a point),
    /// extensions with nested elements of the same names as a point's, CDATA, entities, attributes
    /// in single quotes and either order, and tags across lines.
    @Test func gpxScannerSkipsWhatItDoesNotRead() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("track.gpx", """
            <?xml version='1.0' encoding='UTF-8' standalone="no" ?>
            <!-- Written by a watch; <trkpt lat="1" lon="1"> here is no point -->
            <gpx version="1.1" creator="Caf&#xE9; &amp; Co" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <metadata><name><![CDATA[Run <5 km>]]></name><link href="https://example.com/?a=1&amp;b=2"/></metadata>
              <trk><name>R&amp;R</name><trkseg>
                <trkpt lon='18.5' lat = '45.25'
                       ><ele>100</ele><time>2024-05-01T12:00:00Z</time><!-- <ele>999</ele> -->
                  <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr>
                    <gpxtpx:speed>9</gpxtpx:speed><ele>999</ele></gpxtpx:TrackPointExtension></extensions>
                  <geoidheight>40</geoidheight><hdop>&#49;.2</hdop><sym/></trkpt>
                <trkpt lat="45.5"
                       lon="18.75"><time>2024-05-01T12:00:01Z</time><speed>
                       2.5 </speed></trkpt>
              </trkseg></trk>
            </gpx>

            """)
        let contents = try LocationLogFile.read(contentsOf: path)
        let fixes = contents.log.fixes
        try #require(fixes.count == 2)
        #expect(fixes[0].coordinate == GeoCoordinate(latitude: 45.25, longitude: 18.5, altitude: 140))
        #expect(abs(fixes[0].horizontalAccuracy - 6) < 1e-12 && fixes[0].speed == -1)
        #expect(fixes[1].coordinate == GeoCoordinate(latitude: 45.5, longitude: 18.75) && fixes[1].speed == 2.5)
        #expect(!contents.warnings.contains { $0.contains("geoidheight") })
    }

    /// Malformed GPX: the line of the element never closed, or of the tag the file ends in, and
    /// lines counted through comments.
    @Test func gpxMalformedXMLLines() throws {
        let folder = TemporaryFolder("location")
        let point = #"<trkpt lat="45" lon="18"><time>2024-05-01T12:00:00Z</time></trkpt>"#
        let cases: [(name: String, text: String, mentions: [String])] = [
            ("truncated.gpx", "<gpx>\n<trk>\n<trkseg>\n\(point)\n", ["line 3: malformed XML: <trkseg> is never closed"]),
            ("mismatched.gpx", "<gpx><trk>\n<trkseg>\(point)\n</trk></gpx>",
             ["line 3: malformed XML: </trk> where </trkseg> (opened on line 2) was expected"]),
            ("intag.gpx", "<gpx><trk><trkseg>\n<trkpt lat=\"45\"\n lon=\"18", ["line 2: malformed XML: end of file inside <trkpt"]),
            ("noquote.gpx", "<gpx><trk><trkseg>\n<trkpt lat=\"45\" lon=18>", ["line 2: malformed XML: unexpected \"1\" in <trkpt"]),
            ("comment.gpx", "<gpx>\n<!-- a note\n\(point)</gpx>", ["line 2: malformed XML: end of file inside a comment"]),
            ("twice.gpx", "<gpx><trk><trkseg>\n<trkpt lat=\"45\" lat='46' lon=\"18\"/>", ["line 2: malformed XML: attribute lat given twice"]),
            ("roots.gpx", "<gpx>\(point)</gpx>\n<gpx/>", ["line 2: malformed XML: a second root element <gpx>"]),
            ("nolat.gpx", "<gpx><!--\n\n--><trk><trkseg><trkpt lon=\"18\"><time>2024-05-01T12:00:00Z</time></trkpt></trkseg></trk></gpx>",
             ["line 3: trkpt: no lat attribute"]),
            ("number.gpx", "<gpx><trk><trkseg><![CDATA[\n]]>\n\(point.replacingOccurrences(of: "<time>", with: "<hdop>1,5</hdop><time>"))</trkseg></trk></gpx>",
             ["line 3: trkpt: hdop \"1,5\" is not a finite number"]),
        ]
        for c in cases {
            let path = try folder.write(c.name, c.text)
            expectOneLineError(containing: [path + ": "] + c.mentions) { _ = try LocationLogFile.read(contentsOf: path) }
        }
    }

    /// JSON Lines: a fix, a heading, or both on a line; what a line leaves out is unknown (-1),
    /// or 0 for the altitude; times are the video's, plus the offset.
    @Test func jsonLinesFixesAndHeadings() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("location.jsonl", """
            {"time": 0.0, "latitude": 45.5, "longitude": 18.7, "altitude": 103.2, "horizontalAccuracy": 4.0, "verticalAccuracy": 3.0, "course": 90, "speed": 1.2}
            {"time": 0.25, "heading": 271.5, "headingAccuracy": 10}

            {"time": 1.0, "latitude": 45.6, "longitude": 18.8, "verticalAccuracy": 3.0, "horizontalAccuracy": -1, "heading": 272, "course": -1}
            {"time": 1.5, "heading": -1}
            """)
        let contents = try LocationLogFile.read(contentsOf: path, offset: -0.5)
        #expect(contents.format == .jsonLines)
        #expect(contents.warnings.isEmpty, "\(contents.warnings)")
        #expect(contents.log == LocationLog(
            fixes: [LocationFix(time: -0.5, coordinate: GeoCoordinate(latitude: 45.5, longitude: 18.7, altitude: 103.2),
                                horizontalAccuracy: 4, verticalAccuracy: 3, course: 90, speed: 1.2),
                    LocationFix(time: 0.5, coordinate: GeoCoordinate(latitude: 45.6, longitude: 18.8))],
            headings: [HeadingReading(time: -0.25, heading: 271.5, headingAccuracy: 10), HeadingReading(time: 0.5, heading: 272)]))
    }

    /// What the writer writes, the reader reads back exactly; the bytes have a fixed key order.
    @Test func jsonLinesRoundTrip() throws {
        let folder = TemporaryFolder("location")
        let log = LocationLog(
            fixes: [LocationFix(time: 0, coordinate: GeoCoordinate(latitude: 45.5552699, longitude: 18.6955832, altitude: 103.2),
                                horizontalAccuracy: 4.7, verticalAccuracy: 3, course: 359.9, speed: 1.0 / 3),
                    LocationFix(time: 1 / 30.0, coordinate: GeoCoordinate(latitude: -0.000001, longitude: -179.99999999)),
                    LocationFix(time: 2, coordinate: GeoCoordinate(latitude: 90, longitude: 180, altitude: -12.5), speed: 1e-7)],
            headings: [HeadingReading(time: 1 / 30.0, heading: 0.1), HeadingReading(time: 1.5, heading: 359.99, headingAccuracy: 15)])
        let path = folder.file("location.jsonl")
        try LocationLogFile.writeJSONLines(log, to: path)
        let contents = try LocationLogFile.read(contentsOf: path)
        #expect(contents.log == log)
        #expect(contents.warnings.isEmpty)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 4)
        #expect(text.hasPrefix(#"{"time":0.0,"latitude":45.5552699,"longitude":18.6955832,"altitude":103.2,"horizontalAccuracy":4.7,"verticalAccuracy":3.0,"course":359.9,"speed":0.3333333333333333}"#))
        #expect(text.contains(#"{"time":1.5,"heading":359.99,"headingAccuracy":15.0}"#))
        #expect(folder.contents() == ["location.jsonl"])
        expectOneLineError(containing: [path, "cannot write fix 1"]) {
            try LocationLogFile.writeJSONLines(LocationLog(fixes: [LocationFix(time: .nan, coordinate: GeoCoordinate(latitude: 0, longitude: 0))]),
                                               to: path)
        }
    }

    /// Bad logs: a one-line error naming the file, the line and the problem.
    @Test func badLogsAreOneLineErrors() throws {
        let folder = TemporaryFolder("location")
        let fix = #"{"time": 0, "latitude": 45, "longitude": 18}"#
        let cases: [(name: String, text: String, mentions: [String])] = [
            ("empty.jsonl", " \n\n", ["empty file"]),
            ("latitude.jsonl", fix + "\n" + #"{"time": 1, "latitude": 91, "longitude": 18}"#, ["line 2", "latitude 91.0 is beyond ±90°"]),
            ("longitude.jsonl", #"{"time": 1, "latitude": 45, "longitude": -180.5}"#, ["line 1", "longitude -180.5 is beyond ±180°"]),
            ("garbage.jsonl", fix + "\nfix at noon\n", ["line 2", "not valid JSON"]),
            ("infinite.jsonl", #"{"time": 1, "latitude": 45, "longitude": 1e999}"#, ["line 1", "not valid JSON"]),
            ("heading.jsonl", #"{"time": 1, "latitude": 45, "longitude": 18, "heading": 400}"#, ["line 1", "heading 400.0 is beyond 360°"]),
            ("half.jsonl", #"{"time": 1, "latitude": 45}"#, ["line 1", "latitude without longitude"]),
            ("neither.jsonl", #"{"time": 1, "speed": 2}"#, ["line 1", "neither a fix"]),
            ("notime.jsonl", #"{"latitude": 45, "longitude": 18}"#, ["line 1", "missing key \"time\""]),
            ("headings.jsonl", #"{"time": 1, "heading": 10}"#, ["no location fix", "compass headings only"]),
            ("text.txt", "time,latitude,longitude\n", ["not a location log", "starts with \"t\""]),
            ("garbage.nmea", Self.nmea("GPHDT,10.0,T") + "\nGPS lost\n", ["line 2", "not an NMEA 0183 sentence"]),
            ("latitude.nmea", Self.nmea("GPRMC,123519,A,9107.038,N,01131.000,E,022.4,084.4,230394,003.1,W"),
             ["line 1", "GPRMC", "latitude 91.117", "is beyond ±90°"]),
            ("minutes.nmea", Self.nmea("GPGGA,123519,4807.038,N,01171.000,E,1,08,0.9,545.4,M,46.9,M,,"),
             ["line 1", "GPGGA", "longitude \"01171.000\" has"]),
            ("hemisphere.nmea", Self.nmea("GPGGA,123519,4807.038,E,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), ["latitude hemisphere \"E\""]),
            ("date.nmea", Self.nmea("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,310294,003.1,W"), ["date \"310294\""]),
            ("latitude.gpx", #"<gpx><trk><trkseg>"# + "\n" + #"<trkpt lat="91" lon="18"><time>2024-05-01T12:00:00Z</time></trkpt></trkseg></trk></gpx>"#,
             ["line 2", "trkpt", "latitude 91.0 is beyond ±90°"]),
            ("nan.gpx", #"<gpx><trk><trkseg><trkpt lat="nan" lon="18"><time>2024-05-01T12:00:00Z</time></trkpt></trkseg></trk></gpx>"#,
             ["line 1", "lat \"nan\" is not a finite number"]),
            ("notime.gpx", #"<gpx><trk><trkseg><trkpt lat="45" lon="18"/></trkseg></trk></gpx>"#, ["trkpt: no time"]),
            ("badtime.gpx", #"<gpx><trk><trkseg><trkpt lat="45" lon="18"><time>01/05/2024 12:00</time></trkpt></trkseg></trk></gpx>"#,
             ["time \"01/05/2024 12:00\" is not an ISO 8601"]),
            ("broken.gpx", "<gpx>\n<trk><trkseg><trkpt lat=\"45\" lon=\"18\">\n</trkseg></gpx>", ["line 3", "malformed XML"]),
            ("html.gpx", "<html><body/></html>", ["not a GPX file", "<html>"]),
            ("empty.gpx", "<gpx version=\"1.1\"></gpx>", ["no location fix", "no trkpt"]),
        ]
        for c in cases {
            let path = try folder.write(c.name, c.text)
            expectOneLineError(containing: [path + ": "] + c.mentions) { _ = try LocationLogFile.read(contentsOf: path) }
        }
        expectOneLineError(containing: ["no such file"]) { _ = try LocationLogFile.read(contentsOf: folder.file("none.jsonl")) }
    }

    /// Logs that can be used with care: warnings, each naming the file.
    @Test func warningsForUsableLogs() throws {
        let folder = TemporaryFolder("location")
        let path = try folder.write("location.jsonl", """
            {"time": 2, "latitude": 45, "longitude": 18}
            {"time": 1, "latitude": 45.1, "longitude": 18}
            {"time": 30, "latitude": 45.2, "longitude": 18}
            """)
        let contents = try LocationLogFile.read(contentsOf: path)
        #expect(contents.log.fixes.map(\.time) == [1, 2, 30])
        #expect(contents.warnings == ["\(path): fixes out of time order: sorted",
                                      "\(path): no compass heading: the log gives positions only, so the direction the camera looks must come from elsewhere"])
        #expect(contents.warnings(forVideoDuration: 25).isEmpty)
        let outside = contents.warnings(forVideoDuration: 10)
        #expect(outside.count == 1)
        #expect(outside.first?.hasPrefix("\(path): fixes outside the video's 10.0 s") == true)
        #expect(outside.first?.contains("1 of 3, the first at 30.0 s") == true)
        #expect(try LocationLogFile.read(contentsOf: path, offset: -10).warnings(forVideoDuration: 30).first?.contains("2 of 3, the first at -9.0 s") == true)

        let geoid = try folder.write("location.nmea", Self.nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,"))
        let sea = try LocationLogFile.read(contentsOf: geoid)
        #expect(sea.log.fixes[0].coordinate.altitude == 545.4)
        #expect(sea.warnings.contains { $0.contains("GGA sentences without a geoid separation: 1") })
    }

    /// GPX's ISO 8601 times: fractions, zones, and dates that do not exist.
    @Test func iso8601Times() {
        #expect(UTCTime.iso8601("1970-01-01T00:00:00Z") == 0)
        #expect(UTCTime.iso8601("2000-03-01T00:00:00Z") == 951_868_800)
        #expect(UTCTime.iso8601("2000-03-01T01:30:00+0130") == 951_868_800)
        #expect(UTCTime.iso8601("2000-02-29T23:00:00-01") == 951_868_800)
        #expect(UTCTime.iso8601("2000-02-29 23:00:00.25") == 951_865_200.25)
        for bad in ["2001-02-29T00:00:00Z", "2000-13-01T00:00:00Z", "2000-01-01T24:00:00Z", "2000-01-01T00:00Z",
                    "2000-01-01T00:00:00.Z", "2000-01-01T00:00:00Zulu", "2000-01-01"] {
            #expect(UTCTime.iso8601(bad[...]) == nil, "\(bad)")
        }
    }
}
