import Foundation
import AnchorKit
import AnchorKitRendering

/// Measures where a composited overlay actually landed in a frame, from its pixels: the corners of
/// an opaque single-colour quad painted over a frame, found by comparing the composited frame with
/// the original. This checks the whole chain (pose, projection, rasterisation, anti-aliasing)
/// against ground truth rather than trusting the geometry that drew it.
///
/// Each pixel's coverage is `a = (composited - original) / (colour - original)` on the channel
/// where the colour differs most from the original (pixels whose difference is under
/// ``minimumContrast`` gray levels are not used). Across an anti-aliased edge the coverages of a
/// pixel column (or row) sum to the edge's position along it; the positions along each side are
/// fitted with a line and neighbouring lines intersected.
public enum OverlayEdgeMeasurement {
    /// Colour differences below this (gray levels) make a pixel's coverage too uncertain to use.
    public static let minimumContrast = 40.0
    /// Half the length of each scan across an edge, pixels: the expected edge must be this close.
    public static let searchRadius = 6

    /// The quad's corners in `composited` (TL, TR, BR, BL in the order of `expected`), where
    /// `expected` (image pixels, the quad's approximate corners: within a few pixels) guides the
    /// scans. Nil when a side has fewer than 5 usable scans (too small, off the image, or too
    /// little contrast with the picture under it).
    public static func corners(of color: Color, in composited: Image, original: Image, expected: [SIMD2<Double>]) -> [SIMD2<Double>]? {
        guard expected.count == 4, composited.width == original.width, composited.height == original.height,
              composited.channels == 3, original.channels == 3 else { return nil }
        let centre = expected.reduce(.zero, +) / 4
        let target = SIMD3(Double(color.blue), Double(color.green), Double(color.red))
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        composited.withPixels { out, outRow in
            original.withPixels { base, baseRow in
                func coverage(_ x: Int, _ y: Int) -> Double? {
                    guard x >= 0, y >= 0, x < composited.width, y < composited.height else { return nil }
                    let i = y * outRow + 3 * x, j = y * baseRow + 3 * x
                    var best = 0.0, a = 0.0
                    for c in 0..<3 {
                        let d = target[c] - Double(base[j + c])
                        if abs(d) > abs(best) { best = d; a = (Double(out[i + c]) - Double(base[j + c])) / d }
                    }
                    return abs(best) >= minimumContrast ? min(max(a, 0), 1) : nil
                }
                for k in 0..<4 {
                    let p = expected[k], q = expected[(k + 1) % 4], d = q - p
                    let horizontal = abs(d.x) >= abs(d.y)
                    let a0 = horizontal ? p.x : p.y, a1 = horizontal ? q.x : q.y
                    // Away from the corners, where the neighbouring sides would enter the scan.
                    let first = min(a0, a1) + 0.15 * abs(a1 - a0), last = max(a0, a1) - 0.15 * abs(a1 - a0)
                    guard first < last else { return }
                    var found: [SIMD2<Double>] = []
                    for along in Int(first.rounded(.up))...Int(last.rounded(.down)) {
                        let t = (Double(along) - a0) / (a1 - a0)
                        let across = horizontal ? p.y + t * d.y : p.x + t * d.x
                        let insideIsHigher = horizontal ? centre.y > across : centre.x > across
                        let lo = Int(across.rounded()) - searchRadius, hi = Int(across.rounded()) + searchRadius
                        var sum = 0.0, usable = true
                        for c in lo...hi {
                            guard let a = horizontal ? coverage(along, c) : coverage(c, along) else { usable = false; break }
                            sum += a
                        }
                        guard usable else { continue }
                        // The scan spans [lo - 0.5, hi + 0.5]; `sum` pixels of it are covered, on the inside.
                        let edge = insideIsHigher ? Double(hi) + 0.5 - sum : Double(lo) - 0.5 + sum
                        found.append(horizontal ? SIMD2(Double(along), edge) : SIMD2(edge, Double(along)))
                    }
                    guard found.count >= 5 else { return }
                    lines.append(fitLine(found))
                }
            }
        }
        guard lines.count == 4 else { return nil }
        // Corner k is where side k-1 (ending at it) meets side k (starting at it).
        var out: [SIMD2<Double>] = []
        for k in 0..<4 {
            guard let x = intersect(lines[(k + 3) % 4], lines[k]) else { return nil }
            out.append(x)
        }
        return out
    }

    /// The total-least-squares line through `points`.
    static func fitLine(_ points: [SIMD2<Double>]) -> (point: SIMD2<Double>, direction: SIMD2<Double>) {
        let (centroid, _, vectors) = SymmetricEigen.of(points.map { SIMD3($0.x, $0.y, 0) })
        // The largest of the in-plane spreads is the line's direction (the third axis has none).
        let direction = SIMD2(vectors[2].x, vectors[2].y)
        return (SIMD2(centroid.x, centroid.y), direction / length(direction))
    }

    static func intersect(_ a: (point: SIMD2<Double>, direction: SIMD2<Double>),
                          _ b: (point: SIMD2<Double>, direction: SIMD2<Double>)) -> SIMD2<Double>? {
        let det = a.direction.x * b.direction.y - a.direction.y * b.direction.x
        guard abs(det) > 1e-9 else { return nil }
        let w = b.point - a.point
        let t = (w.x * b.direction.y - w.y * b.direction.x) / det
        return a.point + t * a.direction
    }
}
