import Foundation
import AnchorKit
/// Paints overlays into video frames: each content quad is projected with the frame's camera
/// and composited perspective-correctly (the texture filtered for its on-screen size, edges
/// anti-aliased by their exact pixel coverage, the picture's alpha and the overlay's opacity
/// respected) by the shim's renderer.
///
/// Overlays are drawn with the pinhole model: lens distortion is not applied to them (a
/// homography keeps straight edges straight); undistort strongly distorted video first.
public final class OverlayCompositor {
    /// Content closer to the camera than this (metres along the viewing axis) is cut away:
    /// content that reaches behind the camera is drawn only in front of it.
    public var nearDistance = 0.01
    /// The factors on content's light that a light estimate may set (``composite(_:of:over:camera:light:)``).
    public static let lightRange = 0.25...2.0

    private var renderer: SceneRenderer?
    private var textures: [Int: Image] = [:]

    public init() {}

    /// `image` with the overlays of `instances` (from `scene`) painted over it, seen by `camera`
    /// (whose intrinsics must be of the image's size). Returns `image` itself when nothing shows.
    /// With `light`, content is lit as the scene is: its linear light times the estimate's
    /// intensity / 1000 (within ``lightRange``), so that content in a dim room is drawn dim.
    public func composite(_ instances: [OverlayInstance], of scene: OverlayScene, over image: Image, camera: CameraState,
                          light: LightEstimate? = nil) throws -> Image {
        guard !instances.isEmpty else { return image }
        let gain = light.map {
            pow(min(Self.lightRange.upperBound, max(Self.lightRange.lowerBound, $0.ambientIntensity / 1000)), 1 / LightEstimate.displayGamma)
        } ?? 1
        let intrinsics = camera.intrinsics
        var layers: [SceneRenderer.Layer] = []
        for instance in instances {
            let overlay = scene.placements[instance.placement].overlay
            let texture = try self.texture(for: instance.placement, in: scene)
            let quad = PictureQuad(size: instance.size, pixels: SIMD2(texture.width, texture.height))
            guard let projection = quad.projection(cameraFromQuad: camera.cameraFrom(instance.worldFromContent),
                                                   camera: intrinsics, near: nearDistance) else { continue }
            layers.append(SceneRenderer.Layer(texture: texture, homography: projection.homography, gain: gain,
                                              polygon: projection.polygon, opacity: overlay.opacity))
        }
        guard !layers.isEmpty else { return image }
        if renderer?.width != image.width || renderer?.height != image.height {
            renderer = try SceneRenderer(width: image.width, height: image.height, channels: 3, supersampling: 1)
        }
        return try renderer!.composite(layers, over: image)
    }

    /// The picture of a placement's content (a card is drawn once).
    private func texture(for placement: Int, in scene: OverlayScene) throws -> Image {
        if let t = textures[placement] { return t }
        let t = try scene.placements[placement].overlay.content.texture()
        textures[placement] = t
        return t
    }
}
