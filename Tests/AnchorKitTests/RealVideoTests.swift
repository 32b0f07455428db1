import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia

/// Real phone footage (../shared/datasets/real-sign-video: a 1280x720 handheld video of an outdoor
/// sign, the reference cut from its frame 0, corners measured every 5th frame to 1-2 px), and the
/// light estimate on it.
@Suite("Real video")
struct RealVideoTests {
    static let folder = Paths.shared + "/datasets/real-sign-video"

    /// The measured corners (TL, TR, BR, BL of the reference) by frame.
    static func measuredCorners() throws -> [Int: [SIMD2<Double>]] {
        struct Line: Decodable { let frame: Int; let corners: [[Double]] }
        let text = try String(contentsOfFile: folder + "/pseudo_corners.jsonl", encoding: .utf8)
        var out: [Int: [SIMD2<Double>]] = [:]
        for line in text.split(separator: "\n") {
            let l = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            out[l.frame] = l.corners.map { SIMD2($0[0], $0[1]) }
        }
        return out
    }

    /// At native resolution the sign is found from the first frame and followed through the
    /// walk around it and past the sheet of paper that hides it near frame 100: at least 95 % of
    /// the measured frames within 5 px (RMS over the corners).
    @Test func signAtNativeResolution() throws {
        let sequence = try RecordedSequence(folder: Self.folder)
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let source = try sequence.openFrames()
        var corners: [Int: [SIMD2<Double>]] = [:]
        var light: [LightEstimate] = []
        while let frame = try source.nextFrame() {
            #expect(frame.image.width == 1280 && frame.image.height == 720)
            let update = try session.process(frame)
            light += update.lightEstimate.map { [$0] } ?? []
            if let sign = update.anchors.first(where: { $0.identifier == "image/sign" && $0.isTracked }) { corners[frame.index] = sign.corners }
        }
        let measured = try Self.measuredCorners()
        let errors = measured.keys.sorted().map { f in corners[f].map { Scorer.cornerError($0, measured[f]) } ?? .infinity }
        let within = Double(errors.filter { $0 <= 5 }.count) / Double(errors.count)
        print("real-sign-video at 1280x720: \(errors.filter { $0 <= 5 }.count) of \(errors.count) measured frames within 5 px; "
              + "errors \(errors.map { String(format: "%.1f", $0) }.joined(separator: " "))")
        #expect(corners[0] != nil, "not found in frame 0")
        #expect(within >= 0.95)
        // Daylight, filmed by a phone that exposes for it: near 1000 lumens and 6500 K (measured
        // medians 1218 lm and 6830 K; the range stays within these bounds in every frame).
        let intensity = try #require(Summary(light.map(\.ambientIntensity)))
        let kelvin = try #require(Summary(light.compactMap(\.ambientColorTemperature)))
        print("real-sign-video light: intensity median \(intensity.median) lm, temperature median \(kelvin.median) K")
        #expect(light.count == 120 && kelvin.count == 120)
        #expect((800...1800).contains(intensity.median) && (5500...8000).contains(kelvin.median))
    }

    /// The measured frames as unrelated photos (`--stills`): each searched on its own by the full
    /// detection, with twice a video frame's features. The sign, seen up to 60° off its normal
    /// and blurred, is found in at least 18 of the 21 measured frames (20 when measured), and
    /// never reported off it.
    @Test func signInStillPhotos() throws {
        let sequence = try RecordedSequence(folder: Self.folder)
        var configuration = try Configuration(sequence: sequence)
        configuration.independentFrames = true
        let session = try Session(configuration: configuration)
        let source = try sequence.openFrames()
        let measured = try Self.measuredCorners()
        var errors: [Double] = []
        while let frame = try source.nextFrame() {
            guard let truth = measured[frame.index] else { continue }
            let update = try session.process(frame)
            if let sign = update.anchors.first(where: { $0.identifier == "image/sign" }) { errors.append(Scorer.cornerError(sign.corners, truth)) }
        }
        print("real-sign-video as stills: found in \(errors.count) of \(measured.count) measured frames, "
              + "errors \(errors.map { String(format: "%.2f", $0) }.joined(separator: " "))")
        #expect(errors.count >= 18)
        #expect(errors.allSatisfy { $0 <= 5 })
    }
}
