import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia

/// The trajectory scorer's scale, window by window, on the committed room walk's true cameras
/// with the unit changed part-way, as a refined inertial scale changes it, and the stream's mark
/// of that change (`camera.rescaled`).
@Suite("Trajectory scorer") struct TrajectoryScorerTests {
    /// The true cameras, metric (or not), their translations divided by `unit(time)`: a stream
    /// whose world unit is `unit` metres.
    static func stream(_ truth: [FrameUpdate], scale: WorldScale, unit: (Double) -> Double) -> [FrameUpdate] {
        truth.map { line in
            var camera = line.camera
            camera.transform = camera.transform.translationScaled(by: 1 / unit(line.time))
            camera.trackingState = .normal
            camera.scale = scale
            return FrameUpdate(frame: line.frame, time: line.time, camera: camera, anchors: [])
        }
    }

    @Test func aUnitChangedPartWayShowsInItsWindows() throws {
        let truth = try #require(try RecordedSequence(folder: Paths.dataset("room-walk")).groundTruth())
        // 1.05 m a unit for the first 5 s, 0.98 after: the one similarity blends them.
        let refined = Self.stream(truth, scale: .metric) { $0 < 5 ? 1.05 : 0.98 }
        let score = try #require(TrajectoryScorer().score(reported: refined, truth: truth))
        let windows = score.scaleWindows
        #expect(windows.count == 5, "windows: \(windows)")
        for w in windows where w.endTime < 5 { #expect(abs(w.errorPercent - 5) < 1e-6, "\(w)") }
        for w in windows where w.startTime >= 5 { #expect(abs(w.errorPercent + 2) < 1e-6, "\(w)") }
        let blend = try #require(score.metricScaleErrorPercent)
        #expect(blend > -2 && blend < 5, "one similarity over both units: \(blend) %")
        let row = score.rows.first { $0.0 == "metric scale error per 2 s (%)" }
        #expect(row?.1.hasPrefix("+5.00 (0.00-1.97 s), +5.00 (2.00-3.97 s)") == true, "\(String(describing: row))")

        // The frame the unit changed on says so (`camera.rescaled`): windows restart there, and
        // none blends the two units.
        var marked = refined
        let change = try #require(marked.firstIndex { $0.time >= 5 })
        marked[change].camera.worldRescale = 0.98 / 1.05
        let split = try #require(TrajectoryScorer().score(reported: marked, truth: truth)).scaleWindows
        #expect(split.allSatisfy { abs($0.errorPercent - ($0.startTime < 5 ? 5 : -2)) < 1e-6 }, "windows: \(split)")
        #expect(split.contains { abs($0.startTime - marked[change].time) < 1e-9 })
        let encoded = try JSONEncoder().encode(marked[change])
        #expect(String(decoding: encoded, as: UTF8.self).contains("\"rescaled\":0.93"))
        let decoder = JSONDecoder()
        decoder.userInfo[.cameraIntrinsics] = marked[change].camera.intrinsics
        #expect(try decoder.decode(FrameUpdate.self, from: encoded).camera.worldRescale == 0.98 / 1.05)

        // A stream that never became metric: each window's unit against the whole stream's.
        let arbitrary = Self.stream(truth, scale: .arbitrary) { _ in 0.07 }
        let steady = try #require(TrajectoryScorer().score(reported: arbitrary, truth: truth))
        #expect(steady.scaleWindows.count == 5 && steady.scaleWindows.allSatisfy { abs($0.errorPercent) < 1e-6 })
        #expect(steady.rows.contains { $0.0 == "scale change per 2 s (%)" })
    }
}
