import AnchorKitCV

/// Renders frames of textured planes with motion blur, lighting and sensor noise (a thin wrapper
/// over the shim's supersampling renderer).
public final class SceneRenderer {
    /// One textured plane at one instant: `homography` maps texture pixels to image pixels.
    public struct Layer {
        public var texture: Image
        public var homography: Matrix3
        public var gain: Double
    }

    /// Lighting and sensor effects applied once per frame.
    public struct Finish: Sendable {
        public var gain = 1.0, bias = 0.0
        public var readNoise = 2.0, shotNoise = 0.3, vignetting = 0.2
        public var seed: UInt64 = 0
        public var jpegQuality = 0
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
        for layers in instants {
            var raw = layers.map { l -> ak_layer in
                var layer = ak_layer()
                layer.texture = l.texture.handle
                let h = l.homography.rowMajor
                layer.homography = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8])
                layer.gain = l.gain
                return layer
            }
            _ = try withExtendedLifetime(layers) {
                try NativeError.check(ak_renderer_add_instant(handle, &raw, Int32(raw.count)), "render")
            }
        }
        var p = ak_finish_params(gain: finish.gain, bias: finish.bias, noise_sigma: finish.readNoise,
                                 shot_noise: finish.shotNoise, vignetting: finish.vignetting, seed: finish.seed,
                                 jpeg_quality: Int32(finish.jpegQuality))
        return try Image.make("render") { ak_renderer_finish(handle, &p, $0) }
    }
}
