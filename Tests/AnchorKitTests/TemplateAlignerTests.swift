import AnchorKit
import Foundation
import Testing

/// The sparse inverse-compositional aligner on a known case: a reference pyramid level aligned
/// to the full-size working copy, whose true homography is the pyramid's pixel-centre scaling.
@Suite("Template alignment") struct TemplateAlignerTests {
    /// starry.png's working copy (640x511) and its half-size level (320x255).
    static func images() throws -> (frame: Image, reference: Image, truth: Matrix3) {
        let path = Paths.dataset("images-still") + "/targets/starry.png"
        let target = try ReferenceImage(name: "starry", contentsOf: path, physicalWidth: 0.5)
        let frame = try target.image, reference = try target.pyramid[1]
        // Pixel centres: frame = (level + 0.5) * s - 0.5, per axis.
        let sx = Double(frame.width) / Double(reference.width), sy = Double(frame.height) / Double(reference.height)
        let truth = Matrix3(rows: SIMD3(sx, 0, 0.5 * sx - 0.5), SIMD3(0, sy, 0.5 * sy - 0.5), SIMD3(0, 0, 1))
        return (frame, reference, truth)
    }

    static func cornerError(_ a: Matrix3, _ b: Matrix3, width: Int, height: Int) -> Double {
        let w = Double(width) - 0.5, h = Double(height) - 0.5
        return [SIMD2(-0.5, -0.5), SIMD2(w, -0.5), SIMD2(w, h), SIMD2(-0.5, h)]
            .map { length(Homography.map(a, $0) - Homography.map(b, $0)) }.max()!
    }

    /// A start 3 px and 2 % off (translation, scale, a little perspective).
    static func perturbed(_ truth: Matrix3) -> Matrix3 {
        Matrix3(rows: SIMD3(1.02, 0.01, 3), SIMD3(-0.01, 0.99, -2.5), SIMD3(1e-5, -1e-5, 1)) * truth
    }

    @Test func recoversKnownHomography() throws {
        let (frame, reference, truth) = try Self.images()
        let aligner = try TemplateAligner(reference: reference)
        let start = Self.perturbed(truth)
        #expect(Self.cornerError(start, truth, width: reference.width, height: reference.height) > 5)
        let result = try #require(try aligner.align(start, to: frame, iterations: 30))
        let error = Self.cornerError(result.matrix, truth, width: reference.width, height: reference.height)
        print("aligner: corner error \(error) px, correlation \(result.correlation), coverage \(result.coverage)")
        #expect(error < 0.1)
        #expect(result.correlation > 0.95 && result.coverage > 0.9)
    }

    /// `frame` with its left `covered` share replaced by a flat card (gray 200) and the rest
    /// darkened to 70 % plus 10.
    static func occluded(_ frame: Image, covered: Double) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        frame.withPixels { base, stride in
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    pixels[y * frame.width + x] = Double(x) < Double(frame.width) * covered
                        ? 200 : UInt8(Double(base[y * stride + x]) * 0.7 + 10)
                }
            }
        }
        return try Image.fromPixels(pixels, width: frame.width, height: frame.height, channels: 1)
    }

    /// What tracking asks of it: a start a few pixels off with a fifth of the picture covered,
    /// and a start within a pixel with 40 % covered. (From a start several pixels off, 30 % or
    /// more covered can pull the fit away; the tracker's correlation check then drops it.)
    @Test(arguments: [(0.2, true), (0.4, false)])
    func ignoresAnOccluderAndBrightnessChange(covered: Double, farStart: Bool) throws {
        let (frame, reference, truth) = try Self.images()
        let start = farStart ? Self.perturbed(truth)
            : Matrix3(rows: SIMD3(1.001, 0, 0.6), SIMD3(0, 1, -0.5), SIMD3(0, 0, 1)) * truth
        let aligner = try TemplateAligner(reference: reference)
        let result = try #require(try aligner.align(start, to: try Self.occluded(frame, covered: covered), iterations: 30))
        let error = Self.cornerError(result.matrix, truth, width: reference.width, height: reference.height)
        print("aligner, \(Int(covered * 100)) % covered: corner error \(error) px, correlation \(result.correlation), coverage \(result.coverage)")
        #expect(error < 0.2)
        #expect(result.correlation > 0.95)
        // The coverage counts the samples that agree: about the uncovered share.
        #expect(abs(result.coverage - (1 - covered)) < 0.1)
    }

    @Test func rejectsTheWrongPicture() throws {
        let (_, reference, truth) = try Self.images()
        let other = try ReferenceImage(name: "butterfly", contentsOf: Paths.dataset("images-occlusion") + "/targets/butterfly.png",
                                       physicalWidth: 0.5)
        let aligner = try TemplateAligner(reference: reference)
        let result = try aligner.align(truth, to: try (try other.image).resized(width: 640, height: 511), iterations: 30)
        #expect(result.map { $0.correlation < 0.6 } ?? true)
    }
}
