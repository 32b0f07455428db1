import AnchorKit
/// Where content sits relative to the anchor it is on, as exhibition apps place a caption or a
/// gallery beside a picture. Directions are the target's own: right is its +x, above is toward
/// its top edge (-z).
public enum OverlayLayout: String, Codable, Sendable, CaseIterable {
    /// Centred on the anchor.
    case center
    /// Beside the target's left edge, centred vertically.
    case left
    /// Beside the target's right edge, centred vertically.
    case right
    /// Over the target's top edge, centred horizontally.
    case above
    /// Under the target's bottom edge, centred horizontally.
    case below

    /// The content's centre in the anchor's x-z plane (metres) for content of `size` beside a
    /// target of `extent`, with `margin` metres between the target's edge and the content's.
    func centre(size: SIMD2<Double>, extent: SIMD2<Double>, margin: Double) -> SIMD2<Double> {
        let dx = (extent.x + size.x) / 2 + margin, dz = (extent.y + size.y) / 2 + margin
        switch self {
        case .center: return .zero
        case .left: return SIMD2(-dx, 0)
        case .right: return SIMD2(dx, 0)
        case .above: return SIMD2(0, -dz)
        case .below: return SIMD2(0, dz)
        }
    }
}
