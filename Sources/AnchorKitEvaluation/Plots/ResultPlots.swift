import Foundation
import AnchorKit

/// The pictures `anchorkit plot` draws of a stream scored against its ground truth.
public enum ResultPlots {
    /// The camera's path seen from above (the truth's world: x right, z down the page, metres):
    /// the true path and the stream's after the alignment the trajectory score makes. nil
    /// without world tracking.
    public static func trajectory(reported: [FrameUpdate], truth: [FrameUpdate], name: String) -> SVGChart? {
        let positions = TrajectoryScorer().alignedPositions(reported: reported, truth: truth)
        guard positions.count >= 2 else { return nil }
        let truthPath = truth.sorted { $0.frame < $1.frame }.map { SIMD2($0.camera.transform.translation.x, -$0.camera.transform.translation.z) }
        var chart = SVGChart(title: "\(name): camera path from above", xLabel: "x (m)", yLabel: "-z (m)")
        chart.equalAspect = true
        chart.series = [
            .init(name: "true path", points: truthPath, colour: "#999999", width: 3),
            .init(name: "tracked (aligned)", points: Self.brokenAtGaps(positions.map { ($0.frame, SIMD2($0.estimate.x, -$0.estimate.z)) })),
            .init(name: "start", points: [truthPath[0]], dotted: true, colour: "#000000", width: 4),
        ]
        return chart
    }

    /// Each target's corner error over time (a gap where it was missed), the misses as dots on
    /// the top edge; errors above `ceiling` px are drawn at it. nil when nothing was expected.
    public static func errors(_ score: Score, truth: [FrameUpdate], name: String, ceiling: Double = 5) -> SVGChart? {
        guard let observations = score.observations, !observations.isEmpty else { return nil }
        let time = Dictionary(truth.map { ($0.frame, $0.time) }, uniquingKeysWith: { a, _ in a })
        var order: [String] = []
        for o in observations where !order.contains(o.anchor) { order.append(o.anchor) }
        let worst = observations.compactMap(\.cornerError).max() ?? 1
        var chart = SVGChart(title: "\(name): corner error over time", xLabel: "time (s)", yLabel: "corner error (px, RMS of 4 corners)")
        let top = min(ceiling, max(0.5, worst * 1.1))
        chart.yRange = 0...top
        for (i, anchor) in order.enumerated() {
            let own = observations.filter { $0.anchor == anchor }
            chart.series.append(.init(name: anchor, points: own.map { SIMD2(time[$0.frame] ?? Double($0.frame), $0.cornerError ?? .nan) },
                                      colour: SVGChart.palette[i % SVGChart.palette.count]))
        }
        let missed = observations.filter { $0.cornerError == nil }.map { SIMD2(time[$0.frame] ?? Double($0.frame), top) }
        if !missed.isEmpty { chart.series.append(.init(name: "missed (any target)", points: missed, dotted: true, colour: "#C00000", width: 2)) }
        return chart
    }

    /// Each true plane's coverage over time (``PlaneScorer/coverageOverTime(reported:truth:step:)``,
    /// percent, every `step`-th scored frame). nil without planes in both streams.
    public static func planeCoverage(reported: [FrameUpdate], truth: [FrameUpdate], camera: CameraIntrinsics, name: String,
                                     step: Int = 10) -> SVGChart? {
        let samples = PlaneScorer(camera: camera).coverageOverTime(reported: reported, truth: truth, step: step)
        var ids: [String] = []
        for s in samples { for id in s.coverage.keys.sorted() where !ids.contains(id) { ids.append(id) } }
        guard !ids.isEmpty else { return nil }
        var chart = SVGChart(title: "\(name): planes' coverage over time", xLabel: "time (s)",
                             yLabel: "coverage (% of the plane's area seen so far)")
        chart.yRange = 0...100
        chart.series = ids.map { id in
            .init(name: id, points: samples.map { SIMD2($0.time, $0.coverage[id].map { 100 * $0 } ?? .nan) })
        }
        return chart
    }

    /// Points in frame order, with a NaN between frames that are not consecutive (a gap in the line).
    static func brokenAtGaps(_ points: [(Int, SIMD2<Double>)]) -> [SIMD2<Double>] {
        var out: [SIMD2<Double>] = []
        for (k, (frame, p)) in points.enumerated() {
            if k > 0 && frame != points[k - 1].0 + 1 { out.append(SIMD2(.nan, .nan)) }
            out.append(p)
        }
        return out
    }
}
