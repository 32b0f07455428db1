import Foundation
import AnchorKit

/// Scores light estimates (``FrameUpdate/lightEstimate``) against a ground truth that has them
/// (sequences rendered by `anchorkit synth`, whose truth is the light each frame was rendered with).
///
/// The estimate reads a scene averaging 18 % grey as 1000 lumens; a scene of another mean
/// reflectance reads brighter or darker by one factor in every frame. So intensity is judged
/// by how it follows the light: the correlation of log intensities, and the error left once that
/// one factor (the median ratio, reported beside it) is taken out. Colour temperature is judged
/// as it is, in kelvin.
public struct LightScorer {
    public init() {}

    /// The metrics over frames where both streams have an estimate; nil when there are fewer than 3.
    public func score(reported: [FrameUpdate], truth: [FrameUpdate]) -> LightScore? {
        let reportedByFrame = Dictionary(reported.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
        let pairs = truth.compactMap { t -> (reported: LightEstimate, truth: LightEstimate)? in
            guard let truth = t.lightEstimate, let light = reportedByFrame[t.frame]?.lightEstimate,
                  truth.ambientIntensity > 0, light.ambientIntensity > 0 else { return nil }
            return (light, truth)
        }
        guard pairs.count >= 3 else { return nil }
        let ratios = pairs.map { $0.reported.ambientIntensity / $0.truth.ambientIntensity }
        let scale = Summary(ratios)!.median
        let temperatures = pairs.compactMap { p in
            p.reported.ambientColorTemperature.flatMap { r in p.truth.ambientColorTemperature.map { (r, $0) } }
        }
        return LightScore(
            frames: pairs.count,
            intensityCorrelation: Self.correlation(pairs.map { log($0.reported.ambientIntensity) }, pairs.map { log($0.truth.ambientIntensity) }),
            intensityScale: scale,
            intensityErrorPercent: Summary(ratios.map { 100 * abs($0 / scale - 1) }),
            temperatureCorrelation: temperatures.count >= 3 ? Self.correlation(temperatures.map(\.0), temperatures.map(\.1)) : nil,
            temperatureErrorKelvin: Summary(temperatures.map { abs($0.0 - $0.1) }))
    }

    /// Pearson's correlation (nil when either side does not vary).
    static func correlation(_ a: [Double], _ b: [Double]) -> Double? {
        let n = Double(a.count), ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) { sab += (x - ma) * (y - mb); saa += (x - ma) * (x - ma); sbb += (y - mb) * (y - mb) }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : nil
    }
}

/// How well a stream's light estimates follow the true light (see ``LightScorer``).
public struct LightScore: Codable, Sendable {
    /// Frames with an estimate in both streams.
    public var frames: Int
    /// Pearson's correlation of the log intensities (1: follows every change of the light).
    public var intensityCorrelation: Double?
    /// The median ratio reported / true intensity: the scene's mean reflectance against 18 % grey.
    public var intensityScale: Double
    /// |reported / (scale x true) - 1|, percent.
    public var intensityErrorPercent: Summary?
    /// Pearson's correlation of the colour temperatures (nil when the true one does not change).
    public var temperatureCorrelation: Double?
    /// |reported - true| colour temperature, kelvin.
    public var temperatureErrorKelvin: Summary?

    /// Table rows, in the layout of ``Score/table``.
    public var rows: [(String, String)] {
        return [
            ("light: frames", "\(frames)"),
            ("light: intensity correlation", tableCell(intensityCorrelation, 3)),
            ("light: intensity scale", tableCell(intensityScale, 3)),
            ("light: intensity error median / p90 (%)", "\(tableCell(intensityErrorPercent?.median, 1)) / \(tableCell(intensityErrorPercent?.p90, 1))"),
            ("light: temperature correlation", tableCell(temperatureCorrelation, 3)),
            ("light: temperature error median / p90 (K)", "\(tableCell(temperatureErrorKelvin?.median, 0)) / \(tableCell(temperatureErrorKelvin?.p90, 0))"),
        ]
    }
}
