import Foundation
import AnchorKit

/// Surfaces of rooms as they are (issue 28), drawn procedurally, each a texture at a given texel
/// size: painted walls that are nearly flat (a faint shading gradient, a little noise, and a few
/// features: a door frame, a picture frame, a switch), brick and tiles that repeat, carpet that has
/// only fine grain. Colours are BGR, 0...255; the same seed gives the same bytes.
enum RoomFinishes {
    /// A painted surface `width` x `height` metres: `colour` with a vertical shading gradient of
    /// ±`gradient` (light from above), noise of `grain` grey levels, and `features`: rectangles
    /// (x, y, width, height metres from the top-left; a frame `border` metres wide of `colour`
    /// darkened, or filled when border is 0).
    struct Feature { var x, y, width, height, border: Double; var shade: Double }

    static func painted(width: Double, height: Double, texel: Double, colour: SIMD3<Double>, gradient: Double = 0.06,
                        grain: Double = 1.5, features: [Feature] = [], seed: UInt64) throws -> Image {
        let w = Int((width / texel).rounded()), h = Int((height / texel).rounded())
        var rng = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let light = 1 + gradient * (1 - 2 * Double(y) / Double(max(1, h - 1)))
            for x in 0..<w {
                var c = colour * light
                let mx = Double(x) * texel, my = Double(y) * texel
                for f in features where mx >= f.x && mx < f.x + f.width && my >= f.y && my < f.y + f.height {
                    let inside = f.border > 0 && mx >= f.x + f.border && mx < f.x + f.width - f.border
                        && my >= f.y + f.border && my < f.y + f.height - f.border
                    if !inside { c *= f.shade }
                }
                let n = (rng.nextUnit() - 0.5) * 2 * grain
                for k in 0..<3 { pixels[(y * w + x) * 3 + k] = UInt8(clamping: Int((c[k] + n).rounded())) }
            }
        }
        return try Image.fromPixels(pixels, width: w, height: h, channels: 3)
    }

    /// Bricks in running bond: `brick` (width, height metres) with `mortar` joints, each brick's
    /// colour varied by ±`variation` and a fine grain.
    static func brick(width: Double, height: Double, texel: Double, brick: SIMD2<Double> = SIMD2(0.24, 0.075),
                      mortar: Double = 0.012, colour: SIMD3<Double> = SIMD3(60, 80, 150), variation: Double = 0.12,
                      seed: UInt64) throws -> Image {
        try pattern(width: width, height: height, texel: texel, cell: brick + mortar, joint: mortar, offsetRows: true,
                    colour: colour, jointColour: SIMD3(165, 170, 175), variation: variation, grain: 10, seed: seed)
    }

    /// Square tiles of `tile` metres with `grout` joints: a regular grid with next to no variation.
    static func tiles(width: Double, height: Double, texel: Double, tile: Double = 0.3, grout: Double = 0.004,
                      colour: SIMD3<Double> = SIMD3(200, 205, 205), seed: UInt64) throws -> Image {
        try pattern(width: width, height: height, texel: texel, cell: SIMD2(tile, tile), joint: grout, offsetRows: false,
                    colour: colour, jointColour: SIMD3(120, 125, 125), variation: 0.02, grain: 2, seed: seed)
    }

    private static func pattern(width: Double, height: Double, texel: Double, cell: SIMD2<Double>, joint: Double,
                                offsetRows: Bool, colour: SIMD3<Double>, jointColour: SIMD3<Double>, variation: Double,
                                grain: Double, seed: UInt64) throws -> Image {
        let w = Int((width / texel).rounded()), h = Int((height / texel).rounded())
        var rng = SplitMix64(seed: seed)
        let rows = Int((height / cell.y).rounded(.up)) + 1, columns = Int((width / cell.x).rounded(.up)) + 2
        let shades = (0..<(rows * columns)).map { _ in 1 + variation * (2 * rng.nextUnit() - 1) }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let my = Double(y) * texel
            let row = Int(my / cell.y)
            let shift = offsetRows && row % 2 == 1 ? cell.x / 2 : 0
            for x in 0..<w {
                let mx = Double(x) * texel + shift
                let column = Int(mx / cell.x)
                let inJoint = mx - Double(column) * cell.x < joint || my - Double(row) * cell.y < joint
                let c = inJoint ? jointColour : colour * shades[min(rows - 1, row) * columns + min(columns - 1, column)]
                let n = (rng.nextUnit() - 0.5) * 2 * grain
                for k in 0..<3 { pixels[(y * w + x) * 3 + k] = UInt8(clamping: Int((c[k] + n).rounded())) }
            }
        }
        return try Image.fromPixels(pixels, width: w, height: h, channels: 3)
    }
}
