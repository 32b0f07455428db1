/// Processes frames in order and maintains the anchors found in them (ARSession).
///
/// World tracking is not part of this version: the world is each frame's own camera, so
/// `camera.transform` is the identity and anchor transforms are `camera_from_anchor`
/// (../shared/FORMATS.md, "Without world tracking").
public final class Session {
    /// The configuration the session runs.
    public let configuration: Configuration
    private let trackers: [AnchorTracker]
    /// Known anchors in first-seen order.
    private var anchors: [Anchor] = []
    private var indexByIdentifier: [String: Int] = [:]

    /// Builds the trackers the configuration asks for. Throws for invalid configurations
    /// (unknown dictionaries, non-positive sizes, ...).
    public init(configuration: Configuration) throws {
        try configuration.camera.validate()
        self.configuration = configuration
        var trackers: [AnchorTracker] = []
        if !configuration.markers.isEmpty {
            trackers.append(try MarkerTracker(markerSets: configuration.markers, camera: configuration.camera,
                                              detection: configuration.markerDetection,
                                              parameters: configuration.markerTracking))
        }
        if let images = configuration.referenceImages, !images.images.isEmpty {
            trackers.append(ImageTracker(references: images, camera: configuration.camera, parameters: configuration.imageTracking))
        }
        self.trackers = trackers
    }

    /// Processes the next frame: finds targets, updates anchors, and reports the frame's
    /// camera, all known anchors and the events. Throws if the frame's size disagrees with the
    /// intrinsics.
    public func process(_ frame: Frame) throws -> FrameUpdate {
        try configuration.camera.checkMatches(width: frame.image.width, height: frame.image.height)
        let camera = CameraState(transform: .identity, trackingState: .normal, intrinsics: configuration.camera)
        var events = AnchorEvents()
        var seen = Set<String>()
        for tracker in trackers {
            for o in try tracker.observe(frame) {
                seen.insert(o.identifier)
                let anchor = Anchor(identifier: o.identifier, kind: o.kind, name: o.name, isTracked: true,
                                    transform: camera.transform * o.cameraFromAnchor, extent: o.extent, corners: o.corners)
                if let i = indexByIdentifier[o.identifier] {
                    anchors[i] = anchor
                    events.updated.append(anchor)
                } else {
                    indexByIdentifier[o.identifier] = anchors.count
                    anchors.append(anchor)
                    events.added.append(anchor)
                }
            }
        }
        for i in anchors.indices where !seen.contains(anchors[i].identifier) && anchors[i].isTracked {
            anchors[i].isTracked = false
            anchors[i].corners = nil
            events.updated.append(anchors[i])
        }
        return FrameUpdate(frame: frame.index, time: frame.time, camera: camera, anchors: anchors, events: events)
    }

    /// Processes every remaining frame of `source`, yielding one update per frame.
    public func updates(from source: FrameSource) -> AsyncThrowingStream<FrameUpdate, Error> {
        AsyncThrowingStream { () async throws -> FrameUpdate? in
            guard let frame = try source.nextFrame() else { return nil }
            return try self.process(frame)
        }
    }
}
