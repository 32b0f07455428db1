/// What a session reports for one processed frame (ARFrame): the camera and every known anchor,
/// plus the events since the previous frame. Serialises to one anchor-stream line
/// (../shared/FORMATS.md); events are not serialised.
public struct FrameUpdate: Sendable {
    /// 0-based frame index.
    public var frame: Int
    /// Seconds from the first frame.
    public var time: Double
    /// The camera's pose and tracking state.
    public var camera: CameraState
    /// Every anchor found so far; those not seen in this frame have `isTracked == false`.
    public var anchors: [Anchor]
    /// Anchors that appeared, changed, or disappeared in this frame.
    public var events: AnchorEvents
    /// Still photos: the photo's file (an optional `"image"` key of the stream line).
    public var imageFile: String?
    /// The scene's light in this frame (ARFrame.lightEstimate; the stream's optional
    /// `camera.ambientIntensity` and `camera.ambientColorTemperature`); nil when not estimated.
    public var lightEstimate: LightEstimate?
    /// How well the world is placed on the Earth; nil without geo tracking.
    public var geoTracking: GeoTrackingStatus?

    public init(frame: Int, time: Double, camera: CameraState, anchors: [Anchor], events: AnchorEvents = AnchorEvents()) {
        self.frame = frame; self.time = time; self.camera = camera; self.anchors = anchors; self.events = events
    }

    /// The anchor with this identifier, if listed.
    public func anchor(_ identifier: String) -> Anchor? { anchors.first { $0.identifier == identifier } }
}

/// The ARSessionDelegate-style events of one frame.
public struct AnchorEvents: Equatable, Sendable {
    /// Anchors seen for the first time (session(_:didAdd:)).
    public var added: [Anchor] = []
    /// Anchors whose pose or tracked flag changed (session(_:didUpdate:)).
    public var updated: [Anchor] = []
    /// Anchors no longer listed (session(_:didRemove:)).
    public var removed: [Anchor] = []

    public init(added: [Anchor] = [], updated: [Anchor] = [], removed: [Anchor] = []) {
        self.added = added; self.updated = updated; self.removed = removed
    }

    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty }
}

extension CodingUserInfoKey {
    /// The ``CameraIntrinsics`` of the frames of an anchor stream being decoded: the stream
    /// states each camera's pose, not its intrinsics, which ``FrameUpdate``'s camera carries.
    public static let cameraIntrinsics = CodingUserInfoKey(rawValue: "AnchorKit.cameraIntrinsics")!
}

extension FrameUpdate: Codable {
    enum CodingKeys: String, CodingKey { case frame, time, image, camera, geoTracking, anchors }
    enum CameraKeys: String, CodingKey { case transform, tracking, reason, scale, positionAccuracy, rescaled, ambientIntensity, ambientColorTemperature }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        frame = try c.decode(Int.self, forKey: .frame)
        time = try c.decodeIfPresent(Double.self, forKey: .time) ?? 0
        imageFile = try c.decodeIfPresent(String.self, forKey: .image)
        let cam = try c.nestedContainer(keyedBy: CameraKeys.self, forKey: .camera)
        let transform = try cam.decodeTransform(forKey: .transform)
        let tracking = try cam.decode(String.self, forKey: .tracking)
        let reason = try cam.decodeIfPresent(TrackingState.Reason.self, forKey: .reason)
        let state: TrackingState
        switch tracking {
        case "normal": state = .normal
        case "notAvailable": state = .notAvailable
        case "limited": state = .limited(reason ?? .initializing)
        default:
            throw DecodingError.dataCorruptedError(forKey: .tracking, in: cam,
                debugDescription: "tracking must be notAvailable, limited or normal, not \"\(tracking)\"")
        }
        guard let intrinsics = decoder.userInfo[.cameraIntrinsics] as? CameraIntrinsics else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "decoding an anchor stream needs the camera's intrinsics (userInfo[.cameraIntrinsics])"))
        }
        camera = CameraState(transform: transform, trackingState: state, intrinsics: intrinsics,
                             scale: try cam.decodeIfPresent(WorldScale.self, forKey: .scale),
                             positionAccuracy: try cam.decodeIfPresent(Double.self, forKey: .positionAccuracy),
                             worldRescale: try cam.decodeIfPresent(Double.self, forKey: .rescaled))
        if let intensity = try cam.decodeIfPresent(Double.self, forKey: .ambientIntensity) {
            lightEstimate = LightEstimate(ambientIntensity: intensity,
                                          ambientColorTemperature: try cam.decodeIfPresent(Double.self, forKey: .ambientColorTemperature))
        }
        geoTracking = try c.decodeIfPresent(GeoTrackingStatus.self, forKey: .geoTracking)
        anchors = try c.decode([Anchor].self, forKey: .anchors)
        events = AnchorEvents()
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(frame, forKey: .frame)
        try c.encode(time, forKey: .time)
        try c.encodeIfPresent(imageFile, forKey: .image)
        var cam = c.nestedContainer(keyedBy: CameraKeys.self, forKey: .camera)
        try cam.encode(camera.transform.columnMajor, forKey: .transform)
        try cam.encode(camera.trackingState.name, forKey: .tracking)
        try cam.encodeIfPresent(camera.trackingState.reason, forKey: .reason)
        try cam.encodeIfPresent(camera.scale, forKey: .scale)
        // A tenth of a millimetre: finer than any stated accuracy, and short lines.
        try cam.encodeIfPresent(camera.positionAccuracy.map { ($0 * 10_000).rounded() / 10_000 }, forKey: .positionAccuracy)
        try cam.encodeIfPresent(camera.worldRescale, forKey: .rescaled)
        if let light = lightEstimate {
            // A tenth of a lumen and a kelvin: finer than any estimate, and short lines.
            try cam.encode((light.ambientIntensity * 10).rounded() / 10, forKey: .ambientIntensity)
            try cam.encodeIfPresent(light.ambientColorTemperature?.rounded(), forKey: .ambientColorTemperature)
        }
        if var geo = geoTracking {
            // Centimetres and hundredths of a degree: finer than any stated accuracy.
            geo.horizontalAccuracy = geo.horizontalAccuracy.map { ($0 * 100).rounded() / 100 }
            geo.headingAccuracy = geo.headingAccuracy.map { ($0 * 100).rounded() / 100 }
            try c.encode(geo, forKey: .geoTracking)
        }
        try c.encode(anchors, forKey: .anchors)
    }
}
