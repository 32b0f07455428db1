import AnchorKit
/// What an overlay is attached to.
public enum OverlayAttachment: Equatable, Sendable {
    /// Every anchor whose identifier or name is this string: `poster` or `image/poster`, `7` or
    /// `marker/DICT_4X4_50/7`, `plane/0`. The content follows the anchor.
    case anchor(String)
    /// Fixed in the world: `world_from_content` (+y out of the surface, top edge toward -z).
    case world(Transform)
    /// Where a tap at `pixel` (image pixels) of frame `frame` hits a plane or a target's face
    /// (the nearest hit; a surface estimated from feature points if nothing else is hit). From
    /// that frame on it is world-locked (``world(_:)``), standing upright for the tapping camera.
    case tap(frame: Int, pixel: SIMD2<Double>)
}

/// An overlay and where it goes.
public struct PlacedOverlay: Sendable {
    public var overlay: Overlay
    public var attachment: OverlayAttachment

    public init(_ overlay: Overlay, on attachment: OverlayAttachment) {
        self.overlay = overlay; self.attachment = attachment
    }
}

/// One overlay to draw in one frame.
public struct OverlayInstance: Sendable {
    /// Index of the overlay in its ``OverlayScene/placements``.
    public var placement: Int
    /// `world_from_content`: the content's centre and axes (+y out of its face, +x toward its
    /// right edge, +z toward its bottom edge).
    public var worldFromContent: Transform
    /// Width and height, world units (metres when the world is metric).
    public var size: SIMD2<Double>
    /// The anchor it is on; nil for world-locked content.
    public var anchorIdentifier: String?
}
