import Foundation

/// Where the time of a run went, stage by stage (as AprilTag 3's `timeprofile`): wall-clock
/// seconds and calls per stage. A session keeps one (``Session/profile``); the command line adds
/// the stages around it (`anchorkit track --profile`). Stages that run side by side (the markers,
/// the image targets and world tracking's flow; decoding) each count their own wall-clock time,
/// so shares can add up to more than the run.
public struct StageProfile: Sendable {
    /// The stages of the pipeline, in its order.
    public enum Stage: Int, CaseIterable, Sendable {
        /// Decoding frames on the decoding threads (summed over them; ahead of the pipeline).
        case decode
        /// Waiting for the next frame from its source (decoding runs ahead on another thread, so
        /// this is the decode time the pipeline did not hide).
        case frames
        /// Marker detection, refinement and pose (every marker tracker).
        case markers
        /// Of markers: the candidate stage (AprilTag 3 or OpenCV's ArUco, with decoding).
        case markerCandidates
        /// Of markers: sub-pixel corners and edge lines.
        case markerCorners
        /// Of markers: the ideal marker aligned to the image (detections, and markers followed).
        case markerTemplates
        /// Full-frame marker passes run ahead on another core for frames decoded ahead
        /// (``Session/anticipate(_:)``): time the markers stage did not wait for.
        case markerPassesAhead
        /// QR (and other 2-D) codes: reading, following and pose.
        case codes
        /// Of codes: the decoder (zxing-cpp), its retries included.
        case codeReading
        /// Of codes: QR corners refined (finder corners, sizes tried, template alignment).
        case codeCorners
        /// Of codes: codes followed where they were not read.
        case codeFollowing
        /// Reference-image detection, following and pose.
        case images
        /// Of image targets: the flow pyramid, the points followed into it and their homography.
        case imageFlow
        /// Of image targets: the reference aligned to the frame (every start and blur tried).
        case imageAlignment
        /// Of image targets: detection of references not followed (features, matching, checks).
        case imageDetection
        /// Of detection: the level surfaces' top views searched (``ImageTracker/surfaceViewSource``);
        /// its calls are the searches.
        case imageSurfaceLooks
        /// World tracking: the camera's pose (flow, PnP), keyframes included.
        case worldTracking
        /// Of world tracking: the flow pyramid and the points followed into it.
        case worldFlow
        /// Of world tracking: the pose against the map (PnP), or against the whole map when lost
        /// (relocalisation).
        case worldPose
        /// Of world tracking: new keyframes (triangulation, local bundle adjustment, culling).
        case keyframes
        /// Plane detection and growth (after each keyframe).
        case planes
        /// Of plane detection: walls from their foot (line segments, laid on the floor).
        case wallEdges
        /// Geo tracking: fixes and readings paired and fitted, geo anchors placed.
        case geoTracking
        /// Writing the anchor stream.
        case writing

        /// The stage's name in a report.
        public var name: String {
            switch self {
            case .decode: return "decode (its own threads)"
            case .frames: return "waiting for frames"
            case .markers: return "markers"
            case .markerCandidates: return "  of which candidates"
            case .markerCorners: return "  of which corners and edges"
            case .markerTemplates: return "  of which template alignment"
            case .markerPassesAhead: return "marker passes ahead (2nd core)"
            case .codes: return "QR codes"
            case .codeReading: return "  of which reading (zxing-cpp)"
            case .codeCorners: return "  of which corners"
            case .codeFollowing: return "  of which following"
            case .images: return "image targets"
            case .imageFlow: return "  of which flow"
            case .imageAlignment: return "  of which alignment"
            case .imageDetection: return "  of which detection"
            case .imageSurfaceLooks: return "    of which top views"
            case .worldTracking: return "world tracking"
            case .worldFlow: return "  of which flow"
            case .worldPose: return "  of which pose (PnP)"
            case .keyframes: return "  of which keyframes"
            case .planes: return "planes"
            case .geoTracking: return "geo tracking"
            case .wallEdges: return "  of which wall feet"
            case .writing: return "writing"
            }
        }
    }

    /// Total wall-clock seconds and calls of each stage, indexed by `Stage.rawValue`.
    public private(set) var seconds = [Double](repeating: 0, count: Stage.allCases.count)
    public private(set) var calls = [Int](repeating: 0, count: Stage.allCases.count)

    public init() {}

    /// Adds the time since `start` (from ``now()``) to `stage`.
    public mutating func add(_ stage: Stage, since start: ContinuousClock.Instant) {
        seconds[stage.rawValue] += (ContinuousClock.now - start).seconds
        calls[stage.rawValue] += 1
    }

    /// Adds `seconds` over `calls` calls to `stage` (time measured elsewhere).
    public mutating func add(_ stage: Stage, seconds: Double, calls: Int) {
        self.seconds[stage.rawValue] += seconds
        self.calls[stage.rawValue] += calls
    }

    /// The time to pass to ``add(_:since:)``.
    public static func now() -> ContinuousClock.Instant { ContinuousClock.now }

    /// This profile with `other`'s times added.
    public func merged(with other: StageProfile) -> StageProfile {
        var sum = self
        for i in seconds.indices { sum.seconds[i] += other.seconds[i]; sum.calls[i] += other.calls[i] }
        return sum
    }

    /// A table of the stages that ran: total seconds, milliseconds per frame, the frames per
    /// second the stage alone would allow, and its share of `wallSeconds` (the whole run).
    public func table(frames: Int, wallSeconds: Double) -> String {
        var lines = ["stage                          total s   ms/frame   frames/s   share of the run"]
        for stage in Stage.allCases where calls[stage.rawValue] > 0 {
            let s = seconds[stage.rawValue]
            let perFrame = frames > 0 ? 1000 * s / Double(frames) : 0
            let rate = s > 0 ? Double(frames) / s : .infinity
            let share = wallSeconds > 0 ? 100 * s / wallSeconds : 0
            lines.append(stage.name.padding(toLength: 30, withPad: " ", startingAt: 0)
                + String(format: " %8.3f %10.2f %10.1f   %5.1f %%", s, perFrame, rate, share))
        }
        return lines.joined(separator: "\n")
    }
}

extension Duration {
    /// The duration in seconds.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
