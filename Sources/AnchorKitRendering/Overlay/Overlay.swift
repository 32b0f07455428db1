import Foundation
import AnchorKit

/// Content placed on an anchor: a picture or a card, with its size, layout, offset, rotation and
/// opacity. It lies flat in the anchor's x-z plane (on the target's face, on the plane), its top
/// edge toward the anchor's -z, like the target's own picture.
public struct Overlay: Sendable {
    /// What is shown.
    public var content: OverlayContent
    /// Width in metres; nil: see ``size(onAnchorOf:extent:)``.
    public var width: Double?
    /// Height in metres (along the anchor's z); nil: see ``size(onAnchorOf:extent:)``.
    public var height: Double?
    /// Multiplies the size.
    public var scale: Double
    /// Where the content sits relative to the target.
    public var layout: OverlayLayout
    /// Gap between the target's edge and the content's for the side layouts, metres.
    public var margin: Double
    /// Moves the content in the anchor's frame after the layout, metres: +x right, +y out of the
    /// face (toward the viewer), +z toward the bottom edge.
    public var offset: SIMD3<Double>
    /// In-plane rotation about the content's centre, radians, counter-clockwise as seen from the
    /// front (from +y).
    public var rotation: Double
    /// 0 (invisible) ... 1 (as opaque as the content).
    public var opacity: Double

    /// Default width on plane anchors and on world-locked placements (ARKit apps' usual first
    /// object: a hand-sized card), metres.
    public static let defaultWidth = 0.10

    public init(content: OverlayContent, width: Double? = nil, height: Double? = nil, scale: Double = 1,
                layout: OverlayLayout = .center, margin: Double = 0.02, offset: SIMD3<Double> = .zero,
                rotation: Double = 0, opacity: Double = 1) {
        self.content = content; self.width = width; self.height = height; self.scale = scale
        self.layout = layout; self.margin = margin; self.offset = offset; self.rotation = rotation
        self.opacity = opacity
    }

    /// The content's width and height in metres on an anchor of `kind` with `extent` (nil for a
    /// world-locked placement): the given width and height; one of them alone with the other
    /// from the content's aspect ratio; neither: the anchor's extent on image and marker anchors
    /// (the content covers the target exactly), else ``defaultWidth`` wide. Then times ``scale``.
    public func size(onAnchorOf kind: Anchor.Kind?, extent: SIMD2<Double>?) -> SIMD2<Double> {
        let aspect = content.aspectRatio
        let base: SIMD2<Double>
        switch (width, height) {
        case let (w?, h?): base = SIMD2(w, h)
        case let (w?, nil): base = SIMD2(w, w / aspect)
        case let (nil, h?): base = SIMD2(h * aspect, h)
        case (nil, nil):
            if let extent, kind == .image || kind == .marker || kind == .qr { base = extent } else {
                base = SIMD2(Self.defaultWidth, Self.defaultWidth / aspect)
            }
        }
        return base * scale
    }

    /// `anchor_from_content`: where the content's frame (origin at its centre, axes as the
    /// anchor's before ``rotation``) sits in the anchor's frame, for content of `size` on a target
    /// of `extent`: layout, then offset, then the in-plane rotation about +y.
    public func anchorFromContent(size: SIMD2<Double>, extent: SIMD2<Double>) -> Transform {
        let centre = layout.centre(size: size, extent: extent, margin: margin)
        // A rotation by +θ about +y turns +x toward -z: counter-clockwise seen from +y.
        let c = cos(rotation), s = sin(rotation)
        let turn = Matrix3(rows: SIMD3(c, 0, s), SIMD3(0, 1, 0), SIMD3(-s, 0, c))
        return Transform(rotation: turn, translation: SIMD3(centre.x, 0, centre.y) + offset)
    }
}
