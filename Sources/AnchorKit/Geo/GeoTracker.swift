import Foundation

/// Places the session's world on the Earth from position fixes and compass readings (issue 26):
/// each fix is paired with where the world tracker had the camera at the fix's time, each reading
/// with where it looked, and the ``GeoAlignment`` is fitted to the pairs of a sliding window
/// (`GeoAlignmentFit`: robust, weighted by the stated accuracies, the compass a prior on the
/// yaw, the scale free unless the world is metric). The alignment shown moves to each new fit
/// over ``Parameters/blendTime``, so content on geo anchors glides rather than jumps.
///
/// ``Mode/newestFix`` is the naive baseline the fusion is measured against: every frame placed
/// from the newest fix and compass reading alone.
public struct GeoTracker {
    /// How the world is placed.
    public enum Mode: String, Sendable, CaseIterable {
        /// Fixes and readings fused with the world tracker's trajectory (the default).
        case fused
        /// Each frame from the newest fix and reading alone, as if the camera stood at the fix
        /// and looked along the compass: the baseline without fusion.
        case newestFix
    }

    /// How fixes and readings are weighed (defaults for a phone's receiver and compass).
    public struct Parameters: Sendable {
        /// Fused, or the naive baseline.
        public var mode = Mode.fused
        /// Seconds of fixes and readings fitted together.
        public var window = 60.0
        /// Fixes closer in time than this (seconds) are not independent (a receiver's error drifts
        /// slowly): each counts as the share of it that its spacing is.
        public var fixCorrelationTime = 2.0
        /// The same for compass readings (magnetic disturbances last seconds).
        public var headingCorrelationTime = 30.0
        /// The error of a receiver's velocity (Doppler), m/s per horizontal axis: a fix's course is
        /// good to atan(this / speed), used from ``minimumCourseSpeed`` m/s.
        public var velocitySigma = 0.15, minimumCourseSpeed = 0.5
        /// Relative σ of pairing the mean of two fixes' ground speeds with the camera's path over
        /// the second between them (the two speeds' mean is not the mean speed where it changes).
        public var speedPairingSigma = 0.03
        /// Stated where a fix or reading states none: metres (horizontal; vertical twice) and degrees.
        public var defaultHorizontalAccuracy = 10.0, defaultHeadingAccuracy = 15.0
        /// Seconds over which the alignment shown moves to a new fit.
        public var blendTime = 1.0
        /// Seconds over which the frames' gravity is averaged to level the places.
        public var levelTime = 1.0
        /// How high the camera is above the ground, metres: places without an altitude stand this
        /// far below it (a phone held at eye height; a dashboard camera about 1.3 m).
        public var cameraAboveGround = 1.5
        /// Fixes paired before the world is localised, and the largest yaw σ (degrees) and
        /// horizontal σ (metres) it is localised with.
        public var minimumFixes = 5, localizedHeadingSigma = 10.0, localizedHorizontalSigma = 10.0
        /// σ of the log of the scale in a metric world (its own scale error).
        public var metricScaleLogSigma = 0.1
        /// Metres of the camera's path over which a pair's weight falls by e (odometry drifts with
        /// distance: the alignment is fitted for where the camera is).
        public var fadeDistance = 300.0
        /// The prior σ of odometry's scale drift: the mean change of the log of its unit per metre
        /// of path (monocular odometry driving down a street loses ~1e-3 a metre).
        public var scaleDriftSigma = 2e-3
        /// How unevenly it drifts: σ of the log-scale's wander about that trend per √metre of
        /// path, fitted as a profile with a knot every ``scaleKnotSpacing`` metres (a monocular
        /// odometry's scale moves by a few per cent within tens of metres).
        public var scaleWalkSigma = 5e-3, scaleKnotSpacing = 10.0
        /// The prior σ of odometry's yaw drift, radians per metre of path (monocular odometry
        /// driving down a street turns ~3e-5 a metre).
        public var yawDriftSigma = 1e-4
        /// The relative σ under which the fixes' scale makes a world metric (``metricScale``).
        public var scaleTolerance = 0.04
        public init() {}

        /// The horizontal and vertical σ of `fix` (metres): as stated, else the defaults.
        func sigmas(of fix: LocationFix) -> (horizontal: Double, vertical: Double) {
            let horizontal = fix.horizontalAccuracy > 0 ? fix.horizontalAccuracy : defaultHorizontalAccuracy
            return (horizontal, fix.verticalAccuracy > 0 ? fix.verticalAccuracy : 2 * horizontal)
        }

        /// The σ of `reading` (degrees): as stated, else the default.
        func sigma(of reading: HeadingReading) -> Double {
            reading.headingAccuracy > 0 ? reading.headingAccuracy : defaultHeadingAccuracy
        }
    }

    /// What the tracker gives for a frame.
    public struct Update: Sendable {
        /// The frame's geo-tracking state and accuracy.
        public var status: GeoTrackingStatus
        /// Nil until localised.
        public var alignment: GeoAlignment?
        /// The geo anchors, in the session's world (none before localisation).
        public var anchors: [Anchor]
    }

    public let parameters: Parameters
    /// The places reported, in this order.
    public let anchors: [GeoAnchor]
    /// The geo world's origin: the first fix.
    public private(set) var frame: LocalTangentFrame?

    /// Fixes and readings queued, in time order; those before the indices are taken.
    private var pending: [LocationFix] = [], pendingHeadings: [HeadingReading] = []
    private var nextFix = 0, nextHeading = 0
    private var positions = PairWindow<GeoAlignmentFit.Position>(), headings = PairWindow<GeoAlignmentFit.Heading>()
    /// Fixes' courses paired with the direction the camera moved in the world (independent per
    /// fix, unlike a compass's slowly drifting error).
    private var courses = PairWindow<GeoAlignmentFit.Heading>()
    /// Fixes' ground speeds paired with the camera's speed in the world over the second before.
    private var speeds = PairWindow<GeoAlignmentFit.Speed>()
    /// The fix before the newest, for the speed over the second between them.
    private var previousFix: LocationFix?
    /// The length of the camera's path so far, world units.
    private var travelled = 0.0
    /// Posed frames of the window: time, camera centre (world), view azimuth (world, radians; nil
    /// when the camera looks too steeply up or down for one).
    private var track: [(time: Double, centre: SIMD3<Double>, azimuth: Double?)] = []
    private var places: [SIMD3<Double>] = []  // the anchors in the geo world
    private var fitted: GeoAlignmentFit.Result?, shown: GeoAlignment?
    private var newestFix: LocationFix?, newestHeading: HeadingReading?
    private var lastTime: Double?
    /// Up as this frame's gravity has it, in the world (smoothed over ``Parameters/levelTime``):
    /// odometry's world tilts away from gravity over a long path, and places are set level by it.
    private var worldUp: SIMD3<Double>?
    /// Whether the world's metric scale came from the fixes themselves (``metricScale``).
    private var scaleIsFixes = false

    public init(anchors: [GeoAnchor], parameters: Parameters = Parameters()) {
        self.anchors = anchors
        self.parameters = parameters
    }

    /// Queues a fix; it is used once a frame at or after its time is processed. Throws for an
    /// impossible coordinate.
    public mutating func add(_ fix: LocationFix) throws {
        guard fix.time.isFinite else { throw InputError("location", "a fix at time \(fix.time)") }
        if let problem = fix.coordinate.problem { throw InputError("location", "fix at \(fix.time) s: \(problem)") }
        pending.append(fix)
        // Fixes handed over live may arrive out of order; they are taken in time order.
        if pending.count - nextFix > 1, pending[pending.count - 2].time > fix.time { pending[nextFix...].sort { $0.time < $1.time } }
    }

    /// Queues a compass reading.
    public mutating func add(_ heading: HeadingReading) {
        guard heading.time.isFinite, heading.heading.isFinite else { return }
        pendingHeadings.append(heading)
        if pendingHeadings.count - nextHeading > 1, pendingHeadings[pendingHeadings.count - 2].time > heading.time {
            pendingHeadings[nextHeading...].sort { $0.time < $1.time }
        }
    }

    /// The compass reading nearest `time` (seconds of the video), if one lies within `tolerance`
    /// seconds of it: of every reading queued, taken or not.
    public func reading(nearest time: Double, within tolerance: Double) -> HeadingReading? {
        pendingHeadings.min { abs($0.time - time) < abs($1.time - time) }.flatMap { abs($0.time - time) <= tolerance ? $0 : nil }
    }

    /// Geo metres per unit of a world without a metric scale, once the fixes give it to
    /// ``Parameters/scaleTolerance`` (1 σ, relative) over enough of a path: the world can be made
    /// metric by it (``rescale(by:byFixes:)``). Nil in a metric world and until then.
    public var metricScale: Double? {
        guard !scaleIsFixes, let fit = fitted, !fit.scaleWasHeld, positions.count >= parameters.minimumFixes,
              fit.scaleSigma / fit.scale <= parameters.scaleTolerance else { return nil }
        return fit.scale
    }

    /// The world (and every point the tracker holds) was scaled by `factor` about its origin;
    /// `byFixes` when the factor was ``metricScale``, which then holds no independent prior on
    /// later fits (only targets or an inertial log give one).
    public mutating func rescale(by factor: Double, byFixes: Bool = false) {
        if byFixes { scaleIsFixes = true }
        positions.rescale(by: factor)
        headings.rescale(by: factor)
        courses.rescale(by: factor)
        speeds.rescale(by: factor)
        for k in track.indices { track[k].centre *= factor }
        travelled *= factor
        fitted?.scale /= factor
        shown?.scale /= factor
    }

    /// Takes the fixes and readings up to `time` (seconds of the video) and the camera of that
    /// frame, with the frame's gravity when known (camera axes, m/s²); gives the geo tracking
    /// state and the anchors.
    public mutating func update(time: Double, camera: CameraState, gravity: SIMD3<Double>? = nil) throws -> Update {
        let dt = lastTime.map { max(0, time - $0) } ?? 0
        lastTime = time
        if let gravity, length(gravity) > 0, camera.trackingState == .normal {
            let up = camera.transform.rotation * -normalize(gravity)
            let share = parameters.levelTime > 0 ? min(1, dt / parameters.levelTime) : 1
            worldUp = worldUp.map { normalize($0 + share * (up - $0)) } ?? up
        }
        if camera.trackingState == .normal {
            if let last = track.last { travelled += length(camera.transform.translation - last.centre) }
            track.append((time, camera.transform.translation, GeoAlignment.viewAzimuth(of: camera.transform.rotation)))
        }
        track.removeAll { $0.time < time - parameters.window - 1 }
        var changed = false
        while nextFix < pending.count, pending[nextFix].time <= time + 1e-9 {
            newestFix = pending[nextFix]
            nextFix += 1
            changed = try pair(newestFix!) || changed
        }
        while nextHeading < pendingHeadings.count, pendingHeadings[nextHeading].time <= time + 1e-9 {
            newestHeading = pendingHeadings[nextHeading]
            nextHeading += 1
            changed = pair(newestHeading!) || changed
        }
        positions.trim(before: time - parameters.window)
        headings.trim(before: time - parameters.window)
        courses.trim(before: time - parameters.window)
        speeds.trim(before: time - parameters.window)
        switch parameters.mode {
        case .fused: return try fused(camera: camera, refit: changed, dt: dt)
        case .newestFix: return try naive(camera: camera)
        }
    }

    // MARK: Pairing

    /// Pairs `fix` with the camera at its time; false when the track does not reach it.
    private mutating func pair(_ fix: LocationFix) throws -> Bool {
        if frame == nil {
            frame = LocalTangentFrame(origin: fix.coordinate)
            places = try anchors.map { LocalTangentFrame.geoWorld(fromENU: try frame!.enu(of: $0.coordinate)) }
        }
        guard let centre = trackPoint(at: fix.time)?.centre else { return false }
        // The course against the way the camera moved over the last half second (the fix is paired
        // as its time comes: the track does not reach beyond it yet).
        if fix.course >= 0, fix.speed >= parameters.minimumCourseSpeed, let before = trackPoint(at: fix.time - 0.5)?.centre,
           length(SIMD2(centre.x - before.x, centre.z - before.z)) > 0 {
            courses.append(.init(worldAzimuth: GeoAlignment.azimuth(of: centre - before), bearing: fix.course * .pi / 180,
                                 sigma: max(atan2(parameters.velocitySigma, fix.speed), 0.5 * .pi / 180)), time: fix.time, path: travelled)
        }
        // The mean of two fixes' speeds against the camera's mean speed between them (a lag-free
        // pairing, both being means over the same second): its path in tenths of the span, as a
        // receiver's speed follows a hand's sway where the chord would cut across it.
        defer { previousFix = fix }
        if let previous = previousFix, previous.speed >= parameters.minimumCourseSpeed, fix.speed >= parameters.minimumCourseSpeed,
           fix.time - previous.time > 0.5, fix.time - previous.time <= 2 {
            let span = fix.time - previous.time, speed = (previous.speed + fix.speed) / 2
            let points = (0...10).compactMap { trackPoint(at: previous.time + span * Double($0) / 10)?.centre }
            let worldSpeed = zip(points, points.dropFirst()).reduce(0) { $0 + length(SIMD2($1.1.x - $1.0.x, $1.1.z - $1.0.z)) } / span
            if points.count == 11, worldSpeed > 0 {
                let relative = parameters.velocitySigma / speed, pairing = parameters.speedPairingSigma
                speeds.append(.init(worldSpeed: worldSpeed, speed: speed, logSigma: (relative * relative / 2 + pairing * pairing).squareRoot(), span: span),
                              time: fix.time, path: travelled)
            }
        }
        let sigmas = parameters.sigmas(of: fix)
        let inflation = Self.inflation(since: positions.lastTime, at: fix.time, correlation: parameters.fixCorrelationTime)
        let geoWorld = LocalTangentFrame.geoWorld(fromENU: try frame!.enu(of: fix.coordinate))
        positions.append(.init(world: centre, geoWorld: geoWorld, horizontalSigma: sigmas.horizontal * inflation,
                               verticalSigma: sigmas.vertical * inflation), time: fix.time, path: travelled)
        return true
    }

    private mutating func pair(_ reading: HeadingReading) -> Bool {
        guard let azimuth = trackPoint(at: reading.time)?.azimuth else { return false }
        let inflation = Self.inflation(since: headings.lastTime, at: reading.time, correlation: parameters.headingCorrelationTime)
        headings.append(.init(worldAzimuth: azimuth, bearing: reading.heading * .pi / 180, sigma: parameters.sigma(of: reading) * .pi / 180 * inflation),
                        time: reading.time, path: travelled)
        return true
    }

    /// How much a pair's σ grows for not being independent of the one before it (at `previous`):
    /// pairs `correlation` seconds or more apart count fully, closer ones as their share of it.
    private static func inflation(since previous: Double?, at time: Double, correlation: Double) -> Double {
        let spacing = previous.map { time - $0 } ?? correlation
        return max(1, correlation / max(spacing, 1e-3)).squareRoot()
    }

    /// The camera at `time`, between the two posed frames around it (at most 0.25 s apart).
    private func trackPoint(at time: Double) -> (centre: SIMD3<Double>, azimuth: Double?)? {
        guard let after = track.firstIndex(where: { $0.time >= time - 1e-9 }) else { return nil }
        let b = track[after]
        if b.time - time < 1e-6 || after == 0 { return b.time - time < 1.0 / 60 ? (b.centre, b.azimuth) : nil }
        let a = track[after - 1]
        guard b.time - a.time <= 0.25 else { return nil }
        let u = (time - a.time) / (b.time - a.time)
        let azimuth = a.azimuth.flatMap { x in b.azimuth.map { x + u * remainder($0 - x, 2 * .pi) } }
        return (a.centre + u * (b.centre - a.centre), azimuth)
    }

    // MARK: Placing

    private mutating func fused(camera: CameraState, refit: Bool, dt: Double) throws -> Update {
        guard let frame else { return Update(status: .init(state: .notAvailable, reason: .waitingForLocation), anchors: []) }
        if refit, positions.count >= 2 || !headings.isEmpty || !speeds.isEmpty {
            let prior = camera.scale == .metric && !scaleIsFixes ? (value: 1.0, logSigma: parameters.metricScaleLogSigma) : nil
            // Odometry drifts with distance: pairs count less the farther the camera has gone since,
            // so that the alignment holds where the camera is.
            func faded<Pair>(_ pairs: PairWindow<Pair>) -> [Pair] { pairs.faded(at: travelled, over: parameters.fadeDistance) }
            let fit = GeoAlignmentFit(parameters, current: camera.transform.translation)
            fitted = fit.fit(positions: faded(positions), headings: faded(headings) + faded(courses), speeds: faded(speeds), scalePrior: prior)
        }
        guard let fit = fitted else {
            let reason: GeoTrackingStatus.Reason = track.isEmpty ? .worldTrackingUnstable : .insufficientMotion
            return Update(status: .init(state: .initializing, reason: reason), anchors: [])
        }
        let horizontal = fit.horizontalSigma(at: camera.transform.translation), heading = fit.yawSigma * 180 / .pi
        guard positions.count >= parameters.minimumFixes, heading <= parameters.localizedHeadingSigma,
              horizontal <= parameters.localizedHorizontalSigma else {
            return Update(status: .init(state: .initializing, reason: .insufficientMotion), anchors: [])
        }
        // Content on a place is drawn in metres: in a world of unknown unit it would be misplaced
        // in depth and size (the fixes make the world metric once they give its scale).
        guard camera.scale != .arbitrary else {
            return Update(status: .init(state: .initializing, reason: .worldScaleUnknown), anchors: [])
        }
        let target = GeoAlignment(origin: frame.origin, yaw: fit.yaw, scale: fit.scale, translation: fit.translation)
        shown = shown.map { blended($0, toward: target, share: parameters.blendTime > 0 ? min(1, dt / parameters.blendTime) : 1) } ?? target
        let status = GeoTrackingStatus(state: .localized, accuracy: GeoTrackingStatus.accuracy(horizontal: horizontal, heading: heading),
                                       horizontalAccuracy: horizontal, headingAccuracy: heading)
        return Update(status: status, alignment: shown, anchors: placed(by: shown!, camera: camera.transform.translation, accuracy: horizontal,
                                                                            headingSigma: fit.yawSigma))
    }

    private func naive(camera: CameraState) throws -> Update {
        guard let frame, let fix = newestFix else {
            return Update(status: .init(state: .notAvailable, reason: .waitingForLocation), anchors: [])
        }
        guard let reading = newestHeading, let azimuth = GeoAlignment.viewAzimuth(of: camera.transform.rotation) else {
            return Update(status: .init(state: .initializing, reason: .insufficientMotion), anchors: [])
        }
        let yaw = azimuth - reading.heading * .pi / 180
        let rotation = Matrix3.rotation(angle: yaw, axis: SIMD3(0, 1, 0))
        let geoWorld = LocalTangentFrame.geoWorld(fromENU: try frame.enu(of: fix.coordinate))
        let alignment = GeoAlignment(origin: frame.origin, yaw: yaw, translation: geoWorld - rotation * camera.transform.translation)
        let horizontal = parameters.sigmas(of: fix).horizontal, heading = parameters.sigma(of: reading)
        let status = GeoTrackingStatus(state: .localized, accuracy: GeoTrackingStatus.accuracy(horizontal: horizontal, heading: heading),
                                       horizontalAccuracy: horizontal, headingAccuracy: heading)
        return Update(status: status, alignment: alignment, anchors: placed(by: alignment, camera: camera.transform.translation,
                                                                            accuracy: horizontal, headingSigma: heading * .pi / 180))
    }

    /// `a` moved by `share` of the way to `b`.
    private func blended(_ a: GeoAlignment, toward b: GeoAlignment, share: Double) -> GeoAlignment {
        GeoAlignment(origin: b.origin, yaw: a.yaw + share * remainder(b.yaw - a.yaw, 2 * .pi),
                     scale: a.scale * pow(b.scale / a.scale, share), translation: a.translation + share * (b.translation - a.translation))
    }

    /// The anchors, at their metric offsets from the camera (at `camera`, world), each with its
    /// accuracy: the camera's place on the Earth (`accuracy`, metres) and the yaw's σ
    /// (`headingSigma`, radians) over the place's distance, in quadrature.
    private func placed(by alignment: GeoAlignment, camera: SIMD3<Double>, accuracy: Double, headingSigma: Double) -> [Anchor] {
        let eye = alignment.geoWorld(fromWorld: camera)
        // The world's tilt here, from gravity: turned about the camera, places stand level.
        let level = worldUp.map { Transform(rotation: Matrix3.rotation(from: SIMD3(0, 1, 0), to: $0), translation: .zero) } ?? .identity
        let tilt = Transform(translation: camera) * level * Transform(translation: -camera)
        // Places without an altitude stand on the ground under the camera; the altitude reported
        // for them comes from one conversion a frame.
        let standing = zip(anchors, places).map { anchor, place in
            anchor.altitudeSource == .ground ? SIMD3(place.x, eye.y - parameters.cameraAboveGround, place.z) : place
        }
        let converted = anchors.contains { $0.altitudeSource == .ground }
            ? try? frame?.coordinates(of: standing.map(LocalTangentFrame.enu(fromGeoWorld:))) : nil
        return zip(anchors, standing).enumerated().map { k, pair in
            let (anchor, place) = pair
            var coordinate = anchor.coordinate
            if anchor.altitudeSource == .ground, let converted { coordinate.altitude = converted[k].altitude }
            var a = Anchor(identifier: anchor.identifier, kind: .geo, name: anchor.name, isTracked: true,
                           transform: tilt * alignment.worldFromPlace(at: place, seenFrom: camera), extent: .zero)
            a.coordinate = coordinate
            let distance = length(SIMD2(place.x - eye.x, place.z - eye.z))
            a.geoAccuracy = (accuracy * accuracy + pow(distance * headingSigma, 2)).squareRoot()
            return a
        }
    }
}

/// The pairs of one kind in the geo tracker's window, each with the time it was made (seconds of
/// the video) and the camera's path travelled then (world units).
private struct PairWindow<Pair: GeoAlignmentFit.Fading> {
    private var entries: [(time: Double, path: Double, pair: Pair)] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var lastTime: Double? { entries.last?.time }

    mutating func append(_ pair: Pair, time: Double, path: Double) { entries.append((time, path, pair)) }

    /// Drops the pairs made before `time`.
    mutating func trim(before time: Double) { entries.removeAll { $0.time < time } }

    /// The world was scaled by `factor`.
    mutating func rescale(by factor: Double) {
        for k in entries.indices {
            entries[k].path *= factor
            entries[k].pair.rescale(by: factor)
        }
    }

    /// The pairs as the fit takes them with the camera's path at `travelled`: each with its path
    /// since, its σ widened so that its weight falls by e over every `fadeDistance` of it.
    func faded(at travelled: Double, over fadeDistance: Double) -> [Pair] {
        entries.map { entry in
            var pair = entry.pair
            pair.widen(by: exp((travelled - entry.path) / (2 * fadeDistance)))
            pair.pathSince = travelled - entry.path
            return pair
        }
    }
}
