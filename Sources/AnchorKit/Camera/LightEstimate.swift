import Foundation
import AnchorKitCV

/// The scene's light as one frame shows it (ARKit's `ARLightEstimate`): how bright and how warm.
///
/// Recorded frames carry no exposure, so the estimate is the image's own: its mean luminance in
/// linear light against a scene averaging 18 % grey (what a camera's meter aims for), and the
/// colour of its mean in linear light taken as the light's colour (grey world: a scene's
/// surfaces average to grey). A scene brighter or more coloured than that on average reads
/// brighter or more coloured by the same factor in every frame.
public struct LightEstimate: Equatable, Sendable {
    /// Ambient intensity, lumens: 1000 for a frame averaging 18 % grey (neutral), 0 for black,
    /// proportional to the frame's mean linear luminance.
    public var ambientIntensity: Double
    /// Ambient colour temperature, kelvin (6500: neutral daylight, D65; lower is warmer): the
    /// correlated colour temperature of the frame's mean colour. nil for a gray image or a frame
    /// too dark to tell (mean luminance under ``darkestLuminance``).
    public var ambientColorTemperature: Double?

    public init(ambientIntensity: Double, ambientColorTemperature: Double?) {
        self.ambientIntensity = ambientIntensity
        self.ambientColorTemperature = ambientColorTemperature
    }

    /// The linear luminance of 18 % grey: ``ambientIntensity`` 1000.
    public static let neutralLuminance = 0.18
    /// Frames darker than this mean linear luminance (an sRGB gray of about 8 of 255) have no colour temperature.
    public static let darkestLuminance = 0.0025

    /// The estimate of `image` (8-bit gray or BGR, sRGB-encoded).
    public init(of image: Image) throws {
        var rgb = [0.0, 0.0, 0.0]
        try NativeError.check(ak_image_linear_mean(image.handle, &rgb), "light estimate")
        let linear = SIMD3(rgb[0], rgb[1], rgb[2])
        let luminance = dot(Self.luminanceWeights, linear)
        self.init(ambientIntensity: 1000 * luminance / Self.neutralLuminance,
                  ambientColorTemperature: image.channels >= 3 && luminance >= Self.darkestLuminance
                      ? Self.correlatedColorTemperature(linearRGB: linear) : nil)
    }

    /// The power that turns a factor on linear light into one on 8-bit pixel values (`f` on light is
    /// about `f^(1 / displayGamma)` on sRGB values): for renderers that scale pixels.
    public static let displayGamma = 2.2

    /// Rec. 709 / sRGB luminance weights of linear R, G, B.
    public static let luminanceWeights = SIMD3(0.2126, 0.7152, 0.0722)

    /// The correlated colour temperature (kelvin, clamped to 1000...40000) of a colour given in
    /// linear sRGB: CIE xy through the sRGB (D65) matrix, then McCamy's cubic (within a few
    /// kelvin of the Planckian locus' temperature from 2856 to 6504 K; about 2 % off at 2000 K).
    /// nil for black.
    public static func correlatedColorTemperature(linearRGB c: SIMD3<Double>) -> Double? {
        let x = 0.4124 * c.x + 0.3576 * c.y + 0.1805 * c.z
        let y = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
        let z = 0.0193 * c.x + 0.1192 * c.y + 0.9505 * c.z
        let sum = x + y + z
        guard sum > 0 else { return nil }
        let n = (x / sum - 0.3320) / (0.1858 - y / sum)
        let kelvin = 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33
        return min(40000, max(1000, kelvin))
    }

    /// The linear sRGB colour of a black body at `kelvin` (1667...25000, Kim et al.'s cubic fit of
    /// the Planckian locus), scaled to luminance 1: the colour cast of such a light on a camera
    /// balanced for daylight is this divided by ``planckianRGB(kelvin:)`` at 6504 K.
    public static func planckianRGB(kelvin: Double) -> SIMD3<Double> {
        let t = min(25000, max(1667, kelvin))
        let x = t <= 4000
            ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
            : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
        let y: Double
        if t <= 2222 {
            y = -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
        } else if t <= 4000 {
            y = -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
        } else {
            y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
        }
        // XYZ with Y = 1, then linear sRGB.
        let X = x / y, Z = (1 - x - y) / y
        let rgb = SIMD3(3.2406 * X - 1.5372 - 0.4986 * Z, -0.9689 * X + 1.8758 + 0.0415 * Z, 0.0557 * X - 0.2040 + 1.0570 * Z)
        let inGamut = rgb.replacing(with: 1e-3, where: rgb .< 1e-3)  // a deep red light leaves sRGB blue
        return inGamut / dot(luminanceWeights, inGamut)
    }
}
