import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitRendering

/// The template refinement (template_align.cpp behind `MarkerDetector.refineTemplate` and the
/// `.template` corner refinement) on DICT_6X6_250 markers drawn by `MarkerDictionary.image` and
/// rendered through a known homography with the scene renderer (supersampled edges, sensor
/// noise, motion blur as averaged instants), so the true corners are exact.
@Suite("Marker template refinement")
struct MarkerTemplateRefinementTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let side: Double       // px, the black square's mean side
        let tilt: Double       // perspective: corners' distances from the centre scaled by 1 +- tilt
        let motion: Double     // px, length of a horizontal motion blur (0: none)
        let noise: Double      // gray levels of read noise
        let tolerance: Double  // px, largest corner error accepted
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "24 px (3 px modules), sharp", side: 24, tilt: 0.08, motion: 0, noise: 2, tolerance: 0.1),
        Case(name: "48 px, tilted, noisy", side: 48, tilt: 0.15, motion: 0, noise: 4, tolerance: 0.05),
        Case(name: "48 px, 3 px motion blur", side: 48, tilt: 0.1, motion: 3, noise: 2, tolerance: 0.1),
        Case(name: "120 px, tilted", side: 120, tilt: 0.2, motion: 0, noise: 2, tolerance: 0.05),
    ]

    static let dictionary = try! MarkerDictionary(named: "DICT_6X6_250")
    static let id = 37

    struct Scene {
        let image: Image
        let corners: [SIMD2<Double>]
    }

    /// The marker's corners: a square of `side` turned by 0.3 rad about a centre off the pixel
    /// grid, each corner's distance from the centre scaled by 1 + tilt cos(angle) (a perspective).
    static func truth(_ c: Case, centre: SIMD2<Double>) -> [SIMD2<Double>] {
        (0..<4).map { k in
            let angle = 0.3 + Double(k) * .pi / 2 + .pi / 4 + .pi
            let r = c.side / 2.0.squareRoot() * (1 + c.tilt * cos(angle - 0.5))
            return centre + r * SIMD2(cos(angle), sin(angle))
        }
    }

    /// `corners` rendered on a gray background of `width` x `height`: the texture (20 px modules
    /// in a 2-module quiet zone) mapped onto them, exposed over 9 instants spread along x by
    /// `motion` px (centred on the true position).
    static func render(_ c: Case, corners: [SIMD2<Double>], width: Int, height: Int, seed: UInt64 = 1) throws -> Scene {
        let module = 20, side = 8 * module, margin = 2 * module
        let texture = try dictionary.image(id: id, side: side, margin: margin)
        let lo = Float(margin) - 0.5, hi = Float(margin + side) - 0.5
        let model = [SIMD2(lo, lo), SIMD2(hi, lo), SIMD2(hi, hi), SIMD2(lo, hi)]
        let h = try #require(try Homography.estimate(from: model, to: corners.map { SIMD2(Float($0.x), Float($0.y)) },
                                                     method: .leastSquares)).matrix
        let instants = (0..<9).map { i -> [SceneRenderer.Layer] in
            let dx = c.motion * (Double(i) / 8 - 0.5)
            let shift = Matrix3(rows: SIMD3(1, 0, dx), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
            return [SceneRenderer.Layer(texture: texture, homography: shift * h, gain: 0.75)]
        }
        var finish = SceneRenderer.Finish()
        finish.readNoise = c.noise
        finish.shotNoise = 0
        finish.vignetting = 0
        finish.seed = seed
        let renderer = try SceneRenderer(width: width, height: height, channels: 1, supersampling: 4)
        return Scene(image: try renderer.render(instants: instants, background: 110, finish: finish), corners: corners)
    }

    static func scene(_ c: Case) throws -> Scene {
        let n = Int(c.side * 2.5) + 40
        return try render(c, corners: truth(c, centre: SIMD2(Double(n) / 2 + 0.37, Double(n) / 2 - 0.21)), width: n, height: n)
    }

    static func worst(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
        zip(a, b).map { length($0 - $1) }.max()!
    }

    /// Each corner moved 1 px in a direction drawn from a fixed sequence.
    static func perturbed(_ corners: [SIMD2<Double>], seed: Int) -> [SIMD2<Double>] {
        corners.enumerated().map { k, p in
            let angle = Double((seed * 7 + k * 3) % 16) * .pi / 8 + 0.1 * Double(seed)
            return p + SIMD2(cos(angle), sin(angle))
        }
    }

    /// Detection with the default refinement finds the marker and puts every corner within the
    /// case's tolerance of the truth.
    @Test(arguments: cases)
    func detectedCornersMatchTruth(_ c: Case) throws {
        let scene = try Self.scene(c)
        var parameters = MarkerDetectionParameters()
        parameters.measuresCorrelation = true
        let detections = try MarkerDetector(dictionary: Self.dictionary, parameters: parameters).detect(in: scene.image)
        let found = try #require(detections.first { $0.id == Self.id }, "\(c.name): found \(detections.map(\.id))")
        let error = Self.worst(found.corners, scene.corners)
        print("template refinement, \(c.name): worst corner error \(String(format: "%.3f", error)) px")
        #expect(error < c.tolerance)
        // The aligned ideal picture correlates with the image: what confirms a new id (MarkerTracker).
        #expect((found.correlation ?? 0) >= 0.9, "\(c.name): correlation \(String(describing: found.correlation))")
    }

    /// From starts 1 px off at every corner (8 sets of directions), the alignment converges to the
    /// same accuracy.
    @Test(arguments: cases)
    func convergesFromOnePixelOff(_ c: Case) throws {
        let scene = try Self.scene(c)
        let detector = try MarkerDetector(dictionary: Self.dictionary)
        var worst = 0.0
        for seed in 0..<8 {
            let start = Self.perturbed(scene.corners, seed: seed)
            #expect(Self.worst(start, scene.corners) > 0.999)
            let refined = try #require(try detector.refineTemplate(id: Self.id, corners: start, in: scene.image),
                                       "\(c.name), start \(seed): did not converge")
            worst = max(worst, Self.worst(refined, scene.corners))
        }
        print("template refinement from 1 px off, \(c.name): worst corner error \(String(format: "%.3f", worst)) px")
        #expect(worst < c.tolerance)
    }

    /// A marker whose quiet zone runs off the frame: the samples outside are left out.
    @Test func markerAtTheFramesEdge() throws {
        let c = Case(name: "48 px at the edge", side: 48, tilt: 0.1, motion: 0, noise: 2, tolerance: 0.05)
        let scene = try Self.render(c, corners: Self.truth(c, centre: SIMD2(30.5, 60.4)), width: 140, height: 120)
        let left = scene.corners.map(\.x).min()!
        #expect(left > 1 && left < 3)  // the template's margin, half a 6 px module, is cut
        let detector = try MarkerDetector(dictionary: Self.dictionary)
        for seed in 0..<4 {
            let refined = try #require(try detector.refineTemplate(id: Self.id, corners: Self.perturbed(scene.corners, seed: seed),
                                                                   in: scene.image))
            #expect(Self.worst(refined, scene.corners) < c.tolerance, "start \(seed): \(Self.worst(refined, scene.corners)) px")
        }
    }

    /// Same input, same output, bit for bit: detections of two copies of an image (the shim
    /// caches by image, so copies make it detect again), and refinements by two detectors.
    @Test func deterministic() throws {
        let scene = try Self.scene(Self.cases[1])
        let copy = try scene.image.withPixels { base, stride in
            try Image.fromPixels((0..<scene.image.height).flatMap { y in (0..<scene.image.width).map { base[y * stride + $0] } },
                                 width: scene.image.width, height: scene.image.height, channels: 1)
        }
        let detector = try MarkerDetector(dictionary: Self.dictionary)
        let first = try detector.detect(in: scene.image), second = try detector.detect(in: copy)
        #expect(!first.isEmpty && first == second)
        let start = Self.perturbed(scene.corners, seed: 3)
        let a = try detector.refineTemplate(id: Self.id, corners: start, in: scene.image)
        let b = try MarkerDetector(dictionary: Self.dictionary).refineTemplate(id: Self.id, corners: start, in: copy)
        #expect(a != nil && a == b)
    }

    /// No marker there: no refinement. Malformed requests are one-line errors.
    @Test func refusesWhatIsNotTheMarker() throws {
        let detector = try MarkerDetector(dictionary: Self.dictionary)
        let corners = Self.truth(Self.cases[1], centre: SIMD2(50, 50))
        #expect(try detector.refineTemplate(id: Self.id, corners: corners, in: try Image.filled(width: 100, height: 100, value: 128)) == nil)
        let image = try Self.scene(Self.cases[1]).image
        expectOneLineError(containing: ["4 corners"]) { _ = try detector.refineTemplate(id: Self.id, corners: Array(corners.prefix(3)), in: image) }
        expectOneLineError(containing: ["250"]) { _ = try detector.refineTemplate(id: 250, corners: corners, in: image) }
    }
}
