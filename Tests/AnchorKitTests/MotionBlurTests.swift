import Foundation
import Testing
@testable import AnchorKit

/// The pieces of following a target through motion blur: the blur itself and the shape check.
@Suite("Motion blur")
struct MotionBlurTests {
    /// A bright dot blurred by 8 px along x becomes a segment 8 px long centred on it, its light
    /// kept; along the diagonal, a diagonal one.
    @Test func blurSpreadsADotAlongTheMotion() throws {
        var pixels = [UInt8](repeating: 0, count: 41 * 41)
        pixels[20 * 41 + 20] = 255
        let dot = try Image.fromPixels(pixels, width: 41, height: 41, channels: 1)
        let horizontal = try dot.motionBlurred(by: SIMD2(8, 0))
        let row = (0..<41).map { Int(horizontal.pixel(x: $0, y: 20)) }
        #expect(row[20] > 0 && row[16] > 0 && row[24] > 0)
        #expect(row[14] == 0 && row[26] == 0)
        #expect((0..<41).allSatisfy { $0 == 20 || horizontal.pixel(x: 20, y: $0) == 0 })
        #expect(abs(row.reduce(0, +) - 255) <= 10)
        let diagonal = try dot.motionBlurred(by: SIMD2(6, 6))
        #expect(diagonal.pixel(x: 22, y: 22) > 0 && diagonal.pixel(x: 18, y: 18) > 0)
        #expect(diagonal.pixel(x: 22, y: 18) == 0 && diagonal.pixel(x: 18, y: 22) == 0)
        #expect(throws: (any Error).self) { try dot.motionBlurred(by: SIMD2(300, 0)) }
    }

    /// The least-squares similarity recovers a known rotation, scale and shift exactly.
    @Test func similarityFitRecoversAKnownOne() throws {
        let square = [SIMD2(0.0, 0), SIMD2(100, 0), SIMD2(100, 80), SIMD2(0, 80)]
        let angle = 0.3, scale = 1.2, shift = SIMD2(15.0, -7)
        let moved = square.map { p in
            SIMD2(scale * (cos(angle) * p.x - sin(angle) * p.y), scale * (sin(angle) * p.x + cos(angle) * p.y)) + shift
        }
        let fit = try #require(Similarity2D.fit(from: square, to: moved))
        for (p, q) in zip(square, moved) { #expect(length(fit.apply(p) - q) < 1e-9) }
        #expect(Similarity2D.fit(from: [SIMD2(1, 1), SIMD2(1, 1)], to: [SIMD2(0, 0), SIMD2(1, 1)]) == nil)
    }
}
