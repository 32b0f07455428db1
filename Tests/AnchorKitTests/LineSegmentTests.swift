import Testing
@testable import AnchorKit

/// The line segment detector behind walls found from their foot (``FloorEdgeWalls``).
@Suite("Line segments")
struct LineSegmentTests {
    /// A light upper half (a wall, gray 200) over a dark lower half (a floor, gray 60) meeting
    /// along a slanted line: one long segment along it, its ends within a pixel of the line,
    /// the shades on its two sides those of the halves.
    @Test func edgeBetweenTwoShades() throws {
        let (w, h) = (320, 240)
        // The edge: y = 100 + 0.2 x.
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { pixels[y * w + x] = Double(y) < 100 + 0.2 * Double(x) ? 200 : 60 } }
        let image = try Image.fromPixels(pixels, width: w, height: h, channels: 1)
        let segments = try LineSegment.detect(in: image, minimumLength: 100)
        let edge = try #require(segments.first)
        #expect(segments.count == 1)
        for end in [edge.start, edge.end] {
            #expect(abs(Double(end.y) - (100 + 0.2 * Double(end.x)) + 0.5) < 1, "end \(end)")
        }
        #expect(abs(Double(edge.end.x - edge.start.x)) > 280)
        // The light side is the one the left normal points to when it points up (-y).
        let (up, down) = edge.leftNormal.y < 0 ? (edge.leftGray, edge.rightGray) : (edge.rightGray, edge.leftGray)
        #expect(abs(up - 200) < 1 && abs(down - 60) < 1, "up \(up), down \(down)")
    }

    /// A faint wall's foot (gray 180 over a floor of 200) crossed every 40 px by the dark joints of
    /// floor tiles: the detector breaks the edge at each joint, and the pieces come back as one
    /// edge across the image with the two shades beside it.
    @Test func edgeBrokenByCrossingJoints() throws {
        let (w, h) = (320, 240)
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let joint = y >= 100 && (x % 40) < 3
                pixels[y * w + x] = y < 100 ? 180 : joint ? 120 : 200
            }
        }
        let image = try Image.fromPixels(pixels, width: w, height: h, channels: 1)
        let edge = try #require(try LineSegment.detect(in: image, minimumLength: 200).first {
            abs($0.end.y - $0.start.y) < 2 && abs($0.start.y - 99.5) < 1
        })
        #expect(abs(Double(edge.end.x - edge.start.x)) > 280, "\(edge)")
        let (up, down) = edge.leftNormal.y < 0 ? (edge.leftGray, edge.rightGray) : (edge.rightGray, edge.leftGray)
        #expect(abs(up - 180) < 1 && abs(down - 200) < 8, "up \(up), down \(down)")
    }

    @Test func plainImageHasNoSegments() throws {
        let image = try Image.fromPixels([UInt8](repeating: 128, count: 64 * 48), width: 64, height: 48, channels: 1)
        #expect(try LineSegment.detect(in: image, minimumLength: 0).isEmpty)
    }
}
