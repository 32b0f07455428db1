import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitSynthesis

/// The light estimate (ARLightEstimate): known colours and grays, a black frame, the stream's keys,
/// and a rendered sequence whose light is dimmed and raised and goes from tungsten to overcast
/// (images-light: the truth is the light each frame was rendered with).
@Suite("Light estimate")
struct LightEstimateTests {
    /// Colour temperatures of known colours: daylight white, and black bodies at CIE illuminant A
    /// (2856 K), 4000 K and D65's 6504 K through the Planckian fit and back through McCamy's formula.
    @Test func colourTemperatureOfKnownLights() throws {
        let white = try #require(LightEstimate.correlatedColorTemperature(linearRGB: SIMD3(1, 1, 1)))
        #expect(abs(white - 6504) < 15, "\(white)")
        for kelvin in [2856.0, 4000, 6504] {
            let back = try #require(LightEstimate.correlatedColorTemperature(linearRGB: LightEstimate.planckianRGB(kelvin: kelvin)))
            #expect(abs(back - kelvin) < 0.01 * kelvin, "\(kelvin) K -> \(back) K")
        }
        #expect(LightEstimate.correlatedColorTemperature(linearRGB: .zero) == nil)
        // Redder light, lower temperature; bluer, higher.
        #expect(LightEstimate.correlatedColorTemperature(linearRGB: SIMD3(1, 0.8, 0.6))! < 5500)
        #expect(LightEstimate.correlatedColorTemperature(linearRGB: SIMD3(0.6, 0.8, 1))! > 8000)
    }

    /// 18 % grey (sRGB 118) reads 1000 lumens with daylight's temperature; a gray camera's frame has
    /// no temperature; a black frame is intensity 0 and no temperature, not a crash.
    @Test func graysAndBlack() throws {
        let grey = try LightEstimate(of: try Image.filled(width: 64, height: 48, channels: 3, value: 118))
        #expect(abs(grey.ambientIntensity - 1000) < 10, "\(grey.ambientIntensity)")
        #expect(abs(try #require(grey.ambientColorTemperature) - 6504) < 15)
        let gray = try LightEstimate(of: try Image.filled(width: 64, height: 48, channels: 1, value: 118))
        #expect(abs(gray.ambientIntensity - grey.ambientIntensity) < 1e-9 && gray.ambientColorTemperature == nil)
        let black = try LightEstimate(of: try Image.filled(width: 64, height: 48, channels: 3, value: 0))
        #expect(black.ambientIntensity == 0 && black.ambientColorTemperature == nil)
    }

    /// The stream's optional camera keys, written to a tenth of a lumen and a kelvin, read back.
    @Test func streamKeysRoundTrip() throws {
        let camera = try CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 500, cx: 319.5, cy: 239.5)
        var update = FrameUpdate(frame: 3, time: 0.1, camera: CameraState(intrinsics: camera), anchors: [])
        update.lightEstimate = LightEstimate(ambientIntensity: 812.345, ambientColorTemperature: 3210.6)
        let line = String(decoding: try JSONEncoder().encode(update), as: UTF8.self)
        #expect(line.contains("\"ambientIntensity\":812.3") && line.contains("\"ambientColorTemperature\":3211"))
        let decoder = JSONDecoder()
        decoder.userInfo[.cameraIntrinsics] = camera
        let back = try decoder.decode(FrameUpdate.self, from: Data(line.utf8))
        #expect(back.lightEstimate == LightEstimate(ambientIntensity: 812.3, ambientColorTemperature: 3211))
    }

    /// images-light, rendered at 320x240: the estimate follows the light (log intensities correlate
    /// at 0.99 or more) and its colour from 2700 to 9000 K (correlation 0.95 or more, median error
    /// under 600 K).
    @Test func followsTheRenderedLight() throws {
        var scene = try ImageScenes.scene(named: "images-light", frameCount: 150, width: 320, height: 240)
        scene.instantsPerExposure = 1
        let folder = TemporaryFolder("light")
        try SequenceSynthesizer().write(scene, to: folder.file("sequence"))
        let sequence = try RecordedSequence(folder: folder.file("sequence"))
        var configuration = Configuration(camera: sequence.description.camera)
        configuration.estimatesLight = true
        let session = try Session(configuration: configuration)
        let frames = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try frames.nextFrame() { updates.append(try session.process(frame)) }
        let truth = try #require(try sequence.groundTruth())
        let score = try #require(LightScorer().score(reported: updates, truth: truth))
        print("images-light at 320x240:", score.rows.map { "\($0.0) \($0.1)" }.joined(separator: "; "))
        #expect(score.frames == 150)
        #expect(try #require(score.intensityCorrelation) >= 0.99)
        #expect(try #require(score.temperatureCorrelation) >= 0.95)
        #expect(try #require(score.temperatureErrorKelvin).median < 600)
    }
}
