import AnchorKitCV

/// A straight edge in an image (OpenCV's Line Segment Detector), with the mean gray level on
/// either side of it: where two surfaces of different shades meet, such as a plain wall and the
/// floor.
struct LineSegment: Equatable {
    /// The ends, pixels as the frame shows them (origin at the top-left pixel's centre, +y down).
    var start: SIMD2<Float>, end: SIMD2<Float>
    /// Mean gray level (0...255) in a strip 3 to 8 px beside the segment, on the side of
    /// ``leftNormal`` and on the other; -1 where the strip is outside the image.
    var leftGray: Float, rightGray: Float

    /// The unit normal on the segment's left as seen walking from ``start`` to ``end`` (image
    /// axes, +y down).
    var leftNormal: SIMD2<Float> {
        let d = normalize(end - start)
        return SIMD2(d.y, -d.x)
    }

    /// The segments of `image` at least `minimumLength` px long, longest first (at most 2000).
    static func detect(in image: Image, minimumLength: Float) throws -> [LineSegment] {
        var found = [ak_line_segment](repeating: ak_line_segment(), count: 2000), count: Int32 = 0
        try NativeError.check(ak_line_segments(image.handle, minimumLength, &found, Int32(found.count), &count), "line segments")
        return found.prefix(Int(count)).map {
            LineSegment(start: SIMD2($0.x1, $0.y1), end: SIMD2($0.x2, $0.y2), leftGray: $0.left_gray, rightGray: $0.right_gray)
        }
    }
}
