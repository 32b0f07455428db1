/// A target seen in one frame, with its pose relative to the camera.
public struct TargetObservation: Sendable {
    /// The anchor's stable id (e.g. `marker/DICT_4X4_50/7`).
    public var identifier: String
    public var kind: Anchor.Kind
    public var name: String?
    /// Markers: which physical marker of those printing the same id (nil for the first).
    public var instance: Int?
    /// `arkitCamera_from_anchor`.
    public var cameraFromAnchor: Transform
    /// Physical size, metres (width along x, height along z).
    public var extent: SIMD2<Double>
    /// Corners in pixels (TL, TR, BR, BL).
    public var corners: [SIMD2<Double>]?
    /// The noise of `corners` as the tracker judges it, pixels (one standard deviation); nil
    /// when it states none.
    public var cornerSigma: Double? = nil
    /// The motion blur the corners were found through (frame px: its direction and length), when
    /// the tracker modelled one: along it they are held by `cornerSigma`, across it by the
    /// tracker's sharp-frame noise `sharpCornerSigma`.
    public var cornerBlur: SIMD2<Double>? = nil
    /// The noise of `corners` across `cornerBlur`, pixels (one standard deviation).
    public var sharpCornerSigma: Double? = nil
    /// Codes: the payload, and the symbology when it is not QR.
    public var payload: CodePayload? = nil
    public var codeFormat: CodeFormat? = nil
}

/// Finds one kind of target in frames. Trackers keep whatever state they need between frames;
/// the session turns their observations into anchors and events.
public protocol AnchorTracker: AnyObject {
    /// The targets seen in `frame`.
    func observe(_ frame: Frame) throws -> [TargetObservation]
    /// How many frames ahead ``anticipate(_:)`` is worth calling (0: not at all).
    var framesWorthAnticipating: Int { get }
    /// A frame this tracker will observe later, decoded ahead: work that needs that frame alone may
    /// start now on another core. Results must be the same with or without it.
    func anticipate(_ frame: Frame)
}

extension AnchorTracker {
    public var framesWorthAnticipating: Int { 0 }
    public func anticipate(_ frame: Frame) {}
}
