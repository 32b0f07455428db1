import Dispatch

/// Processes frames in order and maintains the anchors found in them (ARSession).
///
/// Without world tracking the world is each frame's own camera: `camera.transform` is the
/// identity and anchor transforms are `camera_from_anchor` (../shared/FORMATS.md). With world
/// tracking (``Configuration/worldTracking``) the camera moves through a fixed world, aligned
/// to gravity when it is known (and to the compass with
/// ``Configuration/WorldAlignment/gravityAndHeading``), and anchors of markers and images stay
/// where they were seen.
public final class Session {
    /// The configuration the session runs.
    public let configuration: Configuration
    private let trackers: [AnchorTracker]
    /// The image tracker among them, which is told of the level surfaces in view.
    private let imageTracker: ImageTracker?
    /// The horizontal planes and the last frame's camera, for the image tracker's top views of
    /// them (none while tracking is not normal).
    private var levelPlanesSeen = SurfaceViewSource()
    private let world: WorldTracker?
    /// `sessionWorld_from_trackerWorld`, fixed once: for odometry in a world of its own, at its
    /// first located frame (a rotation: gravity alignment; the origin stays at the tracker's origin
    /// camera); in a world founded on a target, where odometry joins it (``targetWorld``).
    private var alignment: Transform?
    private var scale: ScaleEstimator?
    /// The map's scale from the inertial log (``Configuration/inertial``), with visual odometry.
    private var inertialScale: InertialScaleEstimator?
    /// With ``Configuration/cameraHeight``: the camera's heights in the aligned world so far.
    private var cameraHeights: [Double] = []
    private var fusion = AnchorFusion()
    /// Plane anchors (nil without plane detection) and the map revision they were found in.
    private var planes: PlaneMap?
    private var planeRevision: Int?
    /// Points of level surfaces from plane sweeps between keyframes (``LevelSweep``).
    private var levelSweep = LevelSweep()
    private lazy var floorEdges = FloorEdgeWalls(parameters: configuration.planeFinding)
    private var trackedRaycasts: [TrackedRaycast] = []
    /// The map's points in the session's world (ARFrame.rawFeaturePoints, but of the whole
    /// map): what `.estimatedPlane` raycasts hit. Empty without visual odometry. Converted once
    /// per map revision, when first asked for.
    public var featurePoints: [SIMD3<Double>] {
        guard let world, let alignment else { return [] }
        if featureCache?.revision != world.mapRevision {
            featureCache = (world.mapRevision, world.mapPoints.map { alignment.apply(to: $0) })
        }
        return featureCache!.points
    }
    private var featureCache: (revision: Int, points: [SIMD3<Double>])?
    /// While true, planes are found, grown and merged; set it to false once the planes are good
    /// enough (as ARKit apps stop plane detection): they then stay as they are.
    public var isRefiningPlanes = true
    /// Known anchors in first-seen order.
    private var anchors: [Anchor] = []
    private var indexByIdentifier: [String: Int] = [:]

    /// Builds the trackers the configuration asks for. Throws for invalid configurations
    /// (unknown dictionaries, non-positive sizes, ...).
    public init(configuration: Configuration) throws {
        try configuration.camera.validate()
        self.configuration = configuration
        var markerParameters = configuration.markerTracking, imageParameters = configuration.imageTracking
        var markerDetection = configuration.markerDetection
        if configuration.independentFrames {
            guard configuration.worldTracking == nil else {
                throw InputError("stills", "world tracking needs a video or a sequence, not independent photos")
            }
            markerParameters = markerParameters.forStills()
            markerDetection = markerDetection.forStills()
            imageParameters = imageParameters.forStills()
        }
        var trackers: [AnchorTracker] = []
        if !configuration.markers.isEmpty {
            trackers.append(try MarkerTracker(markerSets: configuration.markers, camera: configuration.camera,
                                              detection: markerDetection, parameters: markerParameters))
        }
        if let codes = configuration.qrCodes {
            var parameters = configuration.qrTracking
            if configuration.independentFrames { parameters = parameters.forStills() }
            trackers.append(try QRCodeTracker(codes: codes, camera: configuration.camera, parameters: parameters))
        }
        let imageTracker = configuration.referenceImages.flatMap {
            $0.images.isEmpty ? nil : ImageTracker(references: $0, camera: configuration.camera, parameters: imageParameters)
        }
        if let imageTracker { trackers.append(imageTracker) }
        self.trackers = trackers
        self.imageTracker = imageTracker
        switch configuration.worldTracking {
        case nil: world = nil
        case .externalPoses(let poses): world = ExternalPoseTracker(poses: poses)
        case .visualOdometry(let parameters):
            let odometry = VisualOdometry(camera: configuration.camera, parameters: parameters)
            world = odometry
            scale = ScaleEstimator()
            if let samples = configuration.inertial, !samples.isEmpty {
                inertialScale = InertialScaleEstimator(samples: samples)
                odometry.gyroscope = GyroscopeRotation(samples: samples)
            }
            if !configuration.planeDetection.isEmpty { planes = PlaneMap(parameters: configuration.planeFinding) }
        }
        if let height = configuration.cameraHeight {
            if let problem = Plausible.physicalSizeProblem(height, of: "camera height") { throw InputError("camera height", problem) }
            guard planes != nil, configuration.planeDetection.contains(.horizontal), configuration.gravity != nil else {
                throw InputError("camera height", "needs visual odometry with horizontal plane detection and gravity (the floor is found as a plane)")
            }
        }
        if configuration.location != nil || !configuration.geoAnchors.isEmpty {
            guard world != nil else { throw InputError("location", "geo tracking needs world tracking (the fixes are fitted to its trajectory): set worldTracking, or leave location and geoAnchors empty") }
            var geo = GeoTracker(anchors: configuration.geoAnchors, parameters: configuration.geoTracking)
            for fix in configuration.location?.fixes ?? [] { try geo.add(fix) }
            for heading in configuration.location?.headings ?? [] { geo.add(heading) }
            self.geo = geo
        }
        if configuration.worldAlignment == .gravityAndHeading {
            guard case .visualOdometry = configuration.worldTracking else {
                throw InputError("world alignment", "gravityAndHeading needs visual odometry (recorded poses are used as they are)")
            }
            guard let gravity = configuration.gravity, !gravity.isEmpty else {
                throw InputError("world alignment", "gravityAndHeading needs gravity (the compass turns the world about up)")
            }
            guard geo != nil else {
                throw InputError("world alignment", "gravityAndHeading needs geo tracking: configure a location log with compass readings")
            }
        }
        guard configuration.planeDetection.isEmpty || planes != nil else {
            throw InputError("plane detection", "needs visual odometry (planes are found in its map), not recorded poses")
        }
    }

    /// QR code payloads read so far that no size of ``Configuration/qrCodes`` covers: never
    /// anchored (their pose needs the printed size).
    public var codesWithoutSize: [CodePayload] {
        trackers.compactMap { $0 as? QRCodeTracker }.flatMap(\.payloadsWithoutSize)
    }

    /// Where this session's time went, stage by stage (markers, image targets, world tracking
    /// and its keyframes, planes), over every frame processed so far.
    public var profile: StageProfile {
        var profile = world.map { ownProfile.merged(with: $0.profile) } ?? ownProfile
        for case let markers as MarkerTracker in trackers { profile = profile.merged(with: markers.profile) }
        for case let images as ImageTracker in trackers { profile = profile.merged(with: images.profile) }
        for case let codes as QRCodeTracker in trackers { profile = profile.merged(with: codes.profile) }
        return profile
    }
    private var ownProfile = StageProfile()
    /// Geo tracking: where the world is on the Earth.
    private var geo: GeoTracker?
    /// How the world lay on the Earth at the last frame processed (`geoWorld_from_world`; its yaw
    /// is near 0 under ``Configuration/WorldAlignment/gravityAndHeading``). Nil until localised
    /// and without geo tracking.
    public private(set) var geoAlignment: GeoAlignment?
    private var geoAnchorsShown: Set<String> = []

    /// Hands the session a position fix as it arrives (times in seconds of the video); it is used
    /// from the first frame at or after its time. Throws for an impossible coordinate.
    public func add(_ fix: LocationFix) throws {
        guard geo != nil else { throw InputError("location", "geo tracking is off: configure a location log or geo anchors") }
        try geo!.add(fix)
    }

    /// Hands the session a compass reading as it arrives (ignored without geo tracking). With
    /// ``Configuration/WorldAlignment/gravityAndHeading`` it may also turn the world, if it comes
    /// before the world's axes are fixed.
    public func add(_ heading: HeadingReading) { geo?.add(heading) }

    /// The times of the frames processed before odometry had an origin frame (it may choose an
    /// earlier frame than the one it starts on), then the origin frame's time.
    private var frameTimes: [Int: Double] = [:]
    private var originTime: Double?

    /// With ``Configuration/WorldAlignment/gravityAndHeading``: the compass reading the world was
    /// turned by, once its axes are fixed (at odometry's origin frame, or at the frame a target
    /// founds the world on). Nil before, with `.gravity`, and when ``isMissingWorldHeading``.
    public private(set) var worldHeading: HeadingReading?
    /// True once the world's axes were fixed under ``Configuration/WorldAlignment/gravityAndHeading``
    /// without a compass reading within 1 s of that frame (or without gravity for it): the world
    /// is then aligned to gravity only, as with `.gravity`, and geo tracking fits its yaw as usual.
    public private(set) var isMissingWorldHeading = false

    /// Processes the next frame: finds targets, updates anchors, and reports the frame's
    /// camera, all known anchors and the events. Throws if the frame's size disagrees with the
    /// intrinsics.
    public func process(_ frame: Frame) throws -> FrameUpdate {
        try configuration.camera.checkMatches(width: frame.image.width, height: frame.image.height)
        if configuration.independentFrames {
            anchors.removeAll()
            indexByIdentifier.removeAll()
        }
        // Level surfaces are seen from above in a view from the frame's gravity (from the first
        // frame on), else in views of the planes found so far.
        var surfaces = levelPlanesSeen
        surfaces.gravity = configuration.gravity?[frame.index]
        imageTracker?.surfaceViewSource = surfaces
        let observations = try observeSideBySide(frame)
        let locating = StageProfile.now()
        let camera = try locate(frame, observations: observations)
        if world != nil { ownProfile.add(.worldTracking, since: locating) }

        var events = AnchorEvents()
        var seen = Set<String>()
        let locked = world != nil && camera.trackingState == .normal && camera.scale == .metric
        // In a metric map, a target's distance follows the map points on it (many views) rather
        // than its single view, so that its place in the world does not wander.
        let mapPoints = locked && odometryIsMetric ? world!.trackedPoints : []
        for o in observations {
            var worldFromAnchor = camera.transform * o.cameraFromAnchor
            var placed: Bool?
            if world != nil {
                // World-locked anchors are placed once their fused position is certain enough;
                // until then each frame's own view is reported, marked as not placed. Only
                // frames tracked normally in a metric world add views; a placed anchor stays
                // where it is while tracking is limited.
                // In a world that stands on its targets, a view seen grazing (its pose poorly fixed,
                // and prone to flip) places nothing.
                let grazing = targetWorld.isFounded && scale.map { ScaleEstimator.obliquity(of: o) > $0.maximumObliquity } ?? false
                let adds = locked && !grazing
                let fused = adds ? try place(o, camera: camera, mapPoints: mapPoints) : fusion.placed(o.identifier)
                worldFromAnchor = fused ?? worldFromAnchor
                placed = fused != nil
            }
            seen.insert(o.identifier)
            var anchor = Anchor(identifier: o.identifier, kind: o.kind, name: o.name, isTracked: true,
                                transform: worldFromAnchor, extent: o.extent, corners: o.corners)
            anchor.instance = o.instance
            anchor.payload = o.payload
            anchor.codeFormat = o.codeFormat
            anchor.isPlaced = placed
            if let i = indexByIdentifier[o.identifier] {
                anchors[i] = anchor
                events.updated.append(anchor)
            } else {
                indexByIdentifier[o.identifier] = anchors.count
                anchors.append(anchor)
                events.added.append(anchor)
            }
        }
        for i in anchors.indices where !seen.contains(anchors[i].identifier) && anchors[i].isTracked {
            anchors[i].isTracked = false
            anchors[i].corners = nil
            events.updated.append(anchors[i])
        }
        // A native failure in plane finding (odd geometry deep into a long video) costs this
        // frame's plane update, not the run: the next keyframe tries again.
        let planing = StageProfile.now()
        let planeEvents = (try? updatePlanes(camera: camera, frame: frame)) ?? AnchorEvents()
        if planes != nil { ownProfile.add(.planes, since: planing) }
        events.added += planeEvents.added
        events.updated += planeEvents.updated
        events.removed += planeEvents.removed
        if imageTracker != nil, let planes {
            // The next frame's plane views are built, if searched, for this frame's camera.
            levelPlanesSeen = camera.trackingState != .normal ? SurfaceViewSource()
                : SurfaceViewSource(levelPlanes: planes.anchors.filter { $0.alignment == .horizontal }, worldFromCamera: camera.transform)
        }
        for tracked in trackedRaycasts { tracked.update(raycast(tracked.query)) }
        trackedRaycasts.removeAll { !$0.isTracking }
        let geoing = StageProfile.now()
        let geoUpdate = try geo?.update(time: frame.time, camera: camera, gravity: configuration.gravity?[frame.index])
        if geo != nil { ownProfile.add(.geoTracking, since: geoing) }
        for anchor in geoUpdate?.anchors ?? [] {
            if geoAnchorsShown.insert(anchor.identifier).inserted { events.added.append(anchor) } else { events.updated.append(anchor) }
        }
        var update = FrameUpdate(frame: frame.index, time: frame.time, camera: camera,
                                 anchors: anchors + (planes?.anchors ?? []) + (geoUpdate?.anchors ?? []), events: events)
        update.geoTracking = geoUpdate?.status
        geoAlignment = geoUpdate?.alignment
        if configuration.estimatesLight { update.lightEstimate = try LightEstimate(of: frame.image) }
        return update
    }

    /// How many frames ahead of the one being processed ``anticipate(_:)`` is worth calling
    /// (0: not at all; the marker tracker's full-frame pass interval).
    public var framesWorthAnticipating: Int { trackers.map(\.framesWorthAnticipating).max() ?? 0 }

    /// Hands the session a frame it will process later (decoded ahead, at most
    /// ``framesWorthAnticipating`` frames beyond the one being processed), so that work needing
    /// that frame alone (the markers' full-frame passes) starts now on another core. Optional, for
    /// recorded input: every update is identical with or without it. Call it from the thread that
    /// calls ``process(_:)``, between those calls.
    public func anticipate(_ frame: Frame) {
        for tracker in trackers { tracker.anticipate(frame) }
    }

    /// The targets the trackers see in `frame`, in tracker order, with the world tracker's
    /// following of its points into the frame: run side by side on the machine's cores. They
    /// share nothing but the frame's derived copies (each made once, under a lock), so the
    /// results are those of running them one after the other, whatever the threads. Each job's
    /// time goes to its stage: stages that ran side by side add up to more than the frame took.
    private func observeSideBySide(_ frame: Frame) throws -> [TargetObservation] {
        let trackers = self.trackers, world = self.world
        let jobs = trackers.count + (world == nil ? 0 : 1)
        var results = [Result<[TargetObservation], Error>](repeating: .success([]), count: jobs)
        var seconds = [Double](repeating: 0, count: jobs)
        results.withUnsafeMutableBufferPointer { results in
            seconds.withUnsafeMutableBufferPointer { seconds in
                DispatchQueue.concurrentPerform(iterations: jobs) { job in
                    let start = StageProfile.now()
                    results[job] = Result {
                        if job < trackers.count { return try trackers[job].observe(frame) }
                        try world!.prepare(frame)
                        return []
                    }
                    seconds[job] = (StageProfile.now() - start).seconds
                }
            }
        }
        for job in 0..<jobs {
            // The code tracker times itself (its profile).
            if job < trackers.count && trackers[job] is QRCodeTracker { continue }
            let stage: StageProfile.Stage = job == trackers.count ? .worldTracking : trackers[job] is MarkerTracker ? .markers : .images
            ownProfile.add(stage, seconds: seconds[job], calls: job == trackers.count ? 0 : 1)
        }
        return try results.flatMap { try $0.get() }
    }

    /// Finds planes again when the map changed (a new keyframe): in the session's world, with
    /// tolerances in metres once it is metric and scaled by the map's typical depth before.
    private func updatePlanes(camera: CameraState, frame: Frame) throws -> AnchorEvents {
        guard planes != nil, let world, let alignment, world.mapRevision != planeRevision,
              camera.trackingState == .normal, isRefiningPlanes else { return AnchorEvents() }
        planeRevision = world.mapRevision
        let points = featurePoints
        let unit = camera.scale == .metric ? 1 : Self.metresPerUnit(points, seenFrom: camera.transform.translation)
        try levelSweep.add(.init(image: frame.gray(), transform: camera.transform), camera: configuration.camera,
                           metresPerUnit: unit, findingLevels: configuration.planeDetection.contains(.horizontal))
        let finder = PlaneFinder(detection: configuration.planeDetection, parameters: configuration.planeFinding)
        let walls = planes!.anchors.filter { $0.alignment != .horizontal }.map(PlanarRegion.init)
        let level = levelSweep.points(besides: walls, margin: 3 * configuration.planeFinding.inlierDistance / unit)
        var candidates = finder.find(in: points, levelPoints: level.points, recentLevelPoints: level.recentCount,
                                     knownPlanes: planes!.anchors,
                                     viewpoint: camera.transform.translation, metresPerUnit: unit)
        if configuration.planeDetection.contains(.vertical), configuration.planeFinding.wallsFromFloorEdges {
            let floor = FloorEdgeWalls.floor(among: planes!.anchors, points: points,
                                             tolerance: 3 * configuration.planeFinding.inlierDistance / unit)
            let edging = StageProfile.now()
            defer { ownProfile.add(.wallEdges, since: edging) }
            candidates += try floorEdges.candidates(in: frame.gray(), worldFromCamera: camera.transform, camera: configuration.camera,
                                                    floor: floor, points: points, knownPlanes: planes!.anchors, metresPerUnit: unit)
        }
        let views = world.mapViews.map { MapView(centre: alignment.apply(to: $0.centre), points: $0.points) }
        return try planes!.update(with: candidates, growingIn: levelSweep.latestPairs, freeSpace: FreeSpace(views: views, points: points),
                                  viewpoint: camera.transform.translation, metresPerUnit: unit)
    }

    /// A guess of the metres in one unit of a map of arbitrary scale: indoor scenes are seen
    /// from about 2.5 m, so the median distance to the map points is taken to be that.
    static func metresPerUnit(_ points: [SIMD3<Double>], seenFrom viewpoint: SIMD3<Double>) -> Double {
        guard let median = Summary(points.map { length($0 - viewpoint) })?.median, median > 0 else { return 1 }
        return 2.5 / median
    }

    /// The hits of `query` on the session's current planes or feature points, nearest first
    /// (ARSession.raycast). Empty when it hits nothing.
    public func raycast(_ query: RaycastQuery) -> [RaycastResult] {
        Raycaster.cast(query, planes: planes?.anchors ?? [], points: featurePoints)
    }

    /// Repeats `query` after every processed frame and calls `updateHandler` whenever its
    /// results change (ARSession.trackedRaycast); the first results are computed now.
    public func trackedRaycast(_ query: RaycastQuery, updateHandler: @escaping ([RaycastResult]) -> Void) -> TrackedRaycast {
        let tracked = TrackedRaycast(query: query, handler: updateHandler)
        tracked.update(raycast(query))
        trackedRaycasts.append(tracked)
        return tracked
    }

    /// Adds a metric observation to its anchor's fused world pose; the pose once placed. The
    /// target's distance comes from the map points on it when there are enough (then good to a
    /// few per cent: the map's own scale is), else from its apparent size. In a world that stands
    /// on its targets, a target is adjusted with the cameras that saw it as it is placed
    /// (``TargetPlacement``).
    private func place(_ o: TargetObservation, camera: CameraState, mapPoints: [TrackedPoint]) throws -> Transform? {
        let corrected = TargetDepth.corrected(o, points: mapPoints, camera: configuration.camera)
        let used = corrected ?? o
        let worldFromAnchor = camera.transform * used.cameraFromAnchor
        let size = (o.corners.map { ConvexPolygon.area($0) } ?? 0).squareRoot()
        let observation = fusion.observation(
            worldFromAnchor, cameraPosition: camera.transform.translation, focal: configuration.camera.fx, sizePixels: size,
            depthSigma: corrected == nil ? nil : 0.03 * length(used.cameraFromAnchor.translation))
        let wasPlaced = fusion.placed(o.identifier) != nil
        guard fusion.fuse(o.identifier, rotation: worldFromAnchor.rotation, observation) != nil else { return nil }
        // Placed now, in a world that stands on its targets: adjusted with the cameras that saw it.
        if !wasPlaced { try targetWorld.adjustPlacement(of: o.identifier, fusion: &fusion) }
        return fusion.placed(o.identifier)
    }

    /// The camera of `frame` in the session's world: the world tracker's pose, aligned to
    /// gravity, made metric by targets of known size; or, where the world was founded on a target
    /// (``targetWorld``), the targets' pose until odometry joins it.
    private func locate(_ frame: Frame, observations: [TargetObservation]) throws -> CameraState {
        guard let world else { return CameraState(transform: .identity, trackingState: .normal, intrinsics: configuration.camera) }
        if originTime == nil { frameTimes[frame.index] = frame.time }
        var location = try world.locate(frame, landmarks: landmarks(observations))
        if originTime == nil, let origin = world.originFrame {
            originTime = frameTimes[origin]
            frameTimes = [:]
        }
        let rescale = makeMetric(&location, frame: frame, observations: observations, world: world)
        var camera = try camera(of: location, frame: frame, observations: observations, world: world)
        camera.worldRescale = rescale
        return camera
    }

    /// Rescales the world (and `location`) when targets of known size, the inertial log, the
    /// camera's height or position fixes give its metric scale, or the log refines it; returns
    /// the factor, or nil when this frame leaves the world's unit as it was.
    private func makeMetric(_ location: inout CameraLocation, frame: Frame, observations: [TargetObservation],
                            world: WorldTracker) -> Double? {
        var factor: Double?
        if let pose = location.worldFromCamera, location.trackingState == .normal {
            // Targets of known size, else the inertial log, whichever gives the scale first; the
            // log's scale is refined as the walk grows (unless targets gave it).
            if scale != nil, location.scale == .arbitrary {
                factor = scale!.add(observations, points: world.trackedPoints, camera: configuration.camera)
            }
            if factor == nil, inertialScale != nil, location.scale == .arbitrary || inertialScale!.isDone || scaleIsFromFixes {
                factor = inertialScale!.add(frame: frame.index, time: frame.time, mapFromCamera: pose)
            }
            if factor == nil, location.scale == .arbitrary, let height = configuration.cameraHeight, let alignment {
                factor = scaleFromCameraHeight(height, cameraY: (alignment * pose).translation.y)
            }
            // Position fixes over a long enough path give the scale too (a drive at constant speed
            // gives an inertial log none); an inertial log's, good to ~1 % against their ~4 %,
            // replaces it when it comes.
            var byFixes = false
            if factor == nil, location.scale == .arbitrary, let metres = geo?.metricScale { (factor, byFixes) = (metres, true) }
            if let factor {
                world.rescale(by: factor)
                planes?.rescale(by: factor)
                levelSweep.rescale(by: factor)
                floorEdges.rescale(by: factor)
                odometryAccuracy.rescale(by: factor)
                geo?.rescale(by: factor, byFixes: byFixes)
                if byFixes {
                    scaleIsFromFixes = true
                    inertialScale?.noteRescale(by: factor)
                }
                location.worldFromCamera = pose.translationScaled(by: factor)
                location.scale = .metric
            }
        }
        odometryIsMetric = location.scale == .metric
        return factor
    }

    /// The frame's camera in the session's world from the world tracker's `location`.
    private func camera(of location: CameraLocation, frame: Frame, observations: [TargetObservation],
                        world: WorldTracker) throws -> CameraState {
        let intrinsics = configuration.camera
        guard case .visualOdometry = configuration.worldTracking else {
            // Recorded poses are used as they are.
            alignment = alignment ?? .identity
            return CameraState(transform: location.worldFromCamera ?? .identity, trackingState: location.trackingState,
                               intrinsics: intrinsics, scale: location.scale)
        }
        if !targetWorld.isFounded, world.mapRevision == 0 {
            // A target before odometry has a map founds the world at this camera: upright by this
            // frame's gravity when known (as odometry's would be), or as odometry turned it so far
            // (a camera that only turned keeps its orientation).
            let turned = location.worldFromCamera.map { (alignment ?? odometryAlignment()) * $0 }
            let upright = configuration.gravity?[frame.index].map { GravityAlignment.worldFromCamera(gravity: $0) }
            let camera = turned ?? Transform(rotation: upright.map { headingTurn(of: $0, at: frame.time) * $0 } ?? .identity,
                                             translation: .zero)
            let isUpright = turned == nil ? upright != nil : originGravity != nil
            if targetWorld.found(on: observations, worldFromCamera: camera, isUpright: isUpright, fusion: &fusion) { alignment = nil }
        }
        guard targetWorld.isFounded else { return odometryCamera(location, at: frame.time, intrinsics: intrinsics) }
        return try targetWorld.camera(of: frame.index, at: frame.time, observations: observations,
                                      gravity: configuration.gravity?[frame.index], odometry: location, alignment: &alignment,
                                      fusion: fusion, intrinsics: intrinsics)
    }

    /// The odometry's camera in a world of its own: aligned to gravity at its origin frame, with
    /// the accuracy its drift allows once it has a map (a camera that has only turned states none).
    private func odometryCamera(_ location: CameraLocation, at time: Double, intrinsics: CameraIntrinsics) -> CameraState {
        guard let pose = location.worldFromCamera else {
            return CameraState(transform: .identity, trackingState: location.trackingState, intrinsics: intrinsics,
                               scale: location.scale)
        }
        if alignment == nil { alignment = odometryAlignment() }
        let transform = alignment! * pose
        let mapped = (world?.mapRevision ?? 0) > 0
        return CameraState(transform: transform, trackingState: location.trackingState, intrinsics: intrinsics,
                           scale: location.scale,
                           positionAccuracy: mapped ? odometryAccuracy.odometry(at: transform.translation, time: time) : nil)
    }

    /// The frame odometry's world is the camera of (nil before it has one, and without odometry).
    var originFrame: Int? { world?.originFrame }

    /// The gravity given with odometry's origin frame (m/s² in that camera), if any.
    private var originGravity: SIMD3<Double>? { originFrame.flatMap { configuration.gravity?[$0] } }

    /// Odometry's world is the camera of its origin frame; that frame's gravity turns it upright
    /// (and the compass about up, with `.gravityAndHeading`).
    private func odometryAlignment() -> Transform {
        guard let upright = originGravity.map(GravityAlignment.worldFromCamera(gravity:)) else {
            if configuration.worldAlignment == .gravityAndHeading, originFrame != nil { isMissingWorldHeading = true }
            return .identity
        }
        return Transform(rotation: headingTurn(of: upright, at: originTime) * upright, translation: .zero)
    }

    /// With `.gravityAndHeading`, the turn about +y that makes the gravity-aligned world's -z
    /// true north, for a camera whose `world_from_camera` rotation in that world is `upright` at
    /// `time` (seconds of the video): from the compass reading nearest `time`, at most 1 s away.
    /// The identity with `.gravity`, and without such a reading (``isMissingWorldHeading``).
    private func headingTurn(of upright: Matrix3, at time: Double?) -> Matrix3 {
        guard configuration.worldAlignment == .gravityAndHeading else { return .identity }
        guard let time, let reading = geo?.reading(nearest: time, within: 1) else {
            worldHeading = nil
            isMissingWorldHeading = true
            return .identity
        }
        // A compass gives the bearing of where the camera looks (its -z); within 30° of straight
        // down or up there is no such direction, and a phone's compass gives where its top (+y)
        // points instead (held flat, the top is ahead).
        let azimuth = GeoAlignment.viewAzimuth(of: upright) ?? GeoAlignment.azimuth(of: upright.columns.1)
        // The convention, once: azimuths and bearings are clockwise seen from above (from -z and
        // from north), a rotation about +y counter-clockwise, so Ry(θ) takes azimuth a to a - θ.
        // θ = azimuth - bearing (GeoAlignment's yaw) brings the pointer to its bearing: -z north.
        let yaw = azimuth - reading.heading * .pi / 180
        worldHeading = reading
        isMissingWorldHeading = false
        return .rotation(angle: yaw, axis: SIMD3(0, 1, 0))
    }

    /// A world founded on a target, once one is (``TargetWorld``); ``alignment`` is then
    /// `targetWorld_from_odometryWorld`, found where odometry joins.
    private lazy var targetWorld = TargetWorld(camera: configuration.camera)
    /// Whether the world was made metric by position fixes (``GeoTracker/metricScale``), which an
    /// inertial log's scale then corrects.
    private var scaleIsFromFixes = false
    /// Whether the world tracker's last location was metric (its tracked points' depths are metres).
    private var odometryIsMetric = false
    /// The stated accuracy of odometry's camera in a world of its own.
    private var odometryAccuracy = PositionAccuracy()

    /// The factor that puts the camera at `height` metres above the floor on average: the lowest
    /// horizontal plane found, once the camera's height was seen in 30 frames (nil before).
    private func scaleFromCameraHeight(_ height: Double, cameraY: Double) -> Double? {
        cameraHeights.append(cameraY)
        guard cameraHeights.count >= 30,
              let floor = PlaneMap.lowestLevelPlane(among: planes?.anchors ?? []) else { return nil }
        let above = cameraHeights.reduce(0, +) / Double(cameraHeights.count) - floor.transform.translation.y
        return above > 0 ? height / above : nil
    }

    /// Least side, metres, of a target whose corners hold the world tracker's map
    /// (``Landmark/holdsMap``): posters, reference images and printed markers, not stamps. Once
    /// the scale leaves out grazing views (``ScaleEstimator/maximumObliquity``) and keyframes see
    /// the map made before, room-walk's 15 cm markers hold its map within 1.3 cm and keep its
    /// right wall within 1.4 % (2.1 % without them).
    static let mapHoldingSize = 0.1

    /// Corners of world-locked anchors seen in this frame, in the world tracker's own world
    /// (before the gravity alignment): only anchors already placed.
    private func landmarks(_ observations: [TargetObservation]) -> [Landmark] {
        guard let alignment, scale == nil || scale!.isMetric else { return [] }
        let trackerFromWorld = alignment.inverse
        var out: [Landmark] = []
        for o in observations {
            guard let corners = o.corners, let fused = fusion.placed(o.identifier) else { continue }
            let model = TargetConvention.corners(width: o.extent.x, height: o.extent.y)
            let holdsMap = min(o.extent.x, o.extent.y) >= Self.mapHoldingSize
            for (p, pixel) in zip(model, corners) {
                out.append(Landmark(position: trackerFromWorld.apply(to: fused.apply(to: p)), pixel: pixel, holdsMap: holdsMap))
            }
        }
        return out
    }

    /// Processes every remaining frame of `source`, yielding one update per frame.
    public func updates(from source: FrameSource) -> AsyncThrowingStream<FrameUpdate, Error> {
        AsyncThrowingStream { () async throws -> FrameUpdate? in
            guard let frame = try source.nextFrame() else { return nil }
            return try self.process(frame)
        }
    }
}
