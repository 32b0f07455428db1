import AnchorKitCV
import AnchorKitRender
import AnchorKit

/// Renders frames of textured planes with motion blur, lighting and sensor noise (a thin wrapper
/// over the shim's supersampling renderer), or composites textured planes over a picture (overlays
/// on a video frame).
public final class SceneRenderer {
    /// One textured plane at one instant: `homography` maps texture pixels to image pixels.
    public struct Layer {
        /// The picture painted (gray, BGR, or BGRA painted with its alpha).
        public var texture: Image
        /// Texture pixels (centres at integers) to image pixels, at this instant. With a
        /// `polygon` its sign matters: the third row must be the depth (positive in front of the
        /// camera), as ``ScenePlane/projection(cameraFromPlane:camera:)`` gives it.
        public var homography: Matrix3
        /// Brightness factor (lighting on this plane; 1 = as printed).
        public var gain: Double
        /// nil: the whole texture is painted, and all of it must be in front of the camera.
        /// Otherwise a convex polygon in image pixels (3–64 vertices, either winding): only the
        /// part of the texture inside it is painted (an empty polygon paints nothing). This
        /// draws a plane that extends behind the camera: its rectangle clipped by a near plane
        /// in 3D and projected (``ScenePlane/projection(cameraFromPlane:camera:)``).
        public var polygon: [SIMD2<Double>]?
        /// 1: as opaque as the texture; 0: invisible.
        public var opacity: Double

        /// A layer; without `polygon`, the whole texture (which must be in front of the camera).
        public init(texture: Image, homography: Matrix3, gain: Double, polygon: [SIMD2<Double>]? = nil, opacity: Double = 1) {
            self.texture = texture; self.homography = homography; self.gain = gain; self.polygon = polygon
            self.opacity = opacity
        }
    }

    /// Lighting and sensor effects applied once per frame.
    public struct Finish: Sendable {
        public var gain = 1.0, bias = 0.0
        public var readNoise = 2.0, shotNoise = 0.3, vignetting = 0.2
        public var seed: UInt64 = 0
        public var jpegQuality = 0
        /// A colour cast: R, G, B multiplied by these with the gain (gray frames: none).
        public var tint = SIMD3<Double>(1, 1, 1)
        public init() {}
    }

    private let handle: OpaquePointer
    public let width: Int, height: Int

    public init(width: Int, height: Int, channels: Int = 3, supersampling: Int = 2) throws {
        var out: OpaquePointer?
        try NativeError.check(ak_renderer_create(Int32(width), Int32(height), Int32(channels), Int32(supersampling), &out), "renderer")
        handle = out!
        self.width = width; self.height = height
    }

    deinit { ak_renderer_free(handle) }

    /// Renders one frame: each element of `instants` is the layer stack at one moment of the
    /// exposure (painted in order, later layers in front); the moments are averaged.
    public func render(instants: [[Layer]], background: Double, finish: Finish) throws -> Image {
        try NativeError.check(ak_renderer_begin(handle, background), "render")
        try add(instants)
        var p = ak_finish_params(gain: finish.gain, bias: finish.bias, noise_sigma: finish.readNoise,
                                 shot_noise: finish.shotNoise, vignetting: finish.vignetting, seed: finish.seed,
                                 jpeg_quality: Int32(finish.jpegQuality), tint: (finish.tint.z, finish.tint.y, finish.tint.x))
        return try Image.make("render") { ak_renderer_finish(handle, &p, $0) }
    }

    /// Composites `layers` (in order, later ones in front) over `picture`, which has the
    /// renderer's size; no lighting or noise is added. The renderer needs supersampling 1: edges
    /// are anti-aliased by their exact pixel coverage.
    public func composite(_ layers: [Layer], over picture: Image) throws -> Image {
        try NativeError.check(ak_renderer_begin_image(handle, picture.handle), "composite")
        try add([layers])
        var p = ak_finish_params(gain: 1, bias: 0, noise_sigma: 0, shot_noise: 0, vignetting: 0, seed: 0, jpeg_quality: 0, tint: (0, 0, 0))
        return try Image.make("composite") { ak_renderer_finish(handle, &p, $0) }
    }

    /// Adds the instants of one exposure to the frame begun.
    private func add(_ instants: [[Layer]]) throws {
        for var layers in instants {
            layers.removeAll { $0.polygon?.isEmpty == true }  // an empty polygon paints nothing
            // All polygons of the instant in one buffer, which outlives the call.
            let outlines = layers.flatMap { ($0.polygon ?? []).flatMap { [$0.x, $0.y] } }
            try outlines.withUnsafeBufferPointer { buffer in
                var offset = 0
                var raw = layers.map { l -> ak_layer in
                    var layer = ak_layer()
                    layer.texture = l.texture.handle
                    let h = l.homography.rowMajor
                    layer.homography = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8])
                    layer.gain = l.gain
                    layer.transparency = 1 - min(max(l.opacity, 0), 1)
                    if let polygon = l.polygon {
                        layer.polygon = buffer.baseAddress.map { $0 + offset }
                        layer.polygon_count = Int32(polygon.count)
                        offset += 2 * polygon.count
                    }
                    return layer
                }
                _ = try withExtendedLifetime(layers) {
                    try NativeError.check(ak_renderer_add_instant(handle, &raw, Int32(raw.count)), "render")
                }
            }
        }
    }
}
