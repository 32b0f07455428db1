import AnchorKit
/// Deterministic textures for large synthetic surfaces (floors, walls, furniture): mosaics of
/// square tiles, each cut from a photograph of ``PhotoLibrary`` at a seeded place and scale, then
/// desaturated, tinted and shaded per tile.
///
/// Why photographs: visual odometry and plane detection need texture everywhere (corners for ORB,
/// gradients for optical flow) at every scale a walking camera sees, which natural images have and
/// simple procedural patterns lack. Why a mosaic: one photograph stretched over a 6 m floor would be
/// blurred to nothing, and tiling one crop would repeat (ambiguous matches); seeded crops from
/// several photographs repeat nowhere. The same seed gives the same image on every machine
/// (SplitMix64, OpenCV's area resampling).
public enum TextureMosaic {
    /// How a mosaic looks.
    public struct Style: Sendable {
        /// Photographs (``PhotoLibrary`` file names) the tiles are cut from.
        public var photos: [String]
        /// Tile side, texture pixels.
        public var tile: Int
        /// Photograph pixels per texture pixel of a tile (the crop's side over the tile's): above
        /// 1 shows more of the photograph, finer.
        public var zoom: ClosedRange<Double> = 1.2...2.5
        /// 0 gray ... 1 the photograph's colours.
        public var saturation = 0.5
        /// Contrast around mid-gray (1 = as photographed).
        public var contrast = 1.0
        /// Colour multipliers (B, G, R) applied after desaturation.
        public var tint = SIMD3<Double>(1, 1, 1)
        /// Brightness of each tile varies by up to ± this factor.
        public var jitter = 0.12
        /// Width of the dark joints between tiles (pixels; 0 = none) and their brightness factor.
        public var grout = 0
        public var groutLevel = 0.45
        /// Texel noise added after shading (gray levels, the same on all three channels):
        /// uniform in ±`noise`, from its own seeded generator (0 = none: the mosaic is exactly as
        /// without this option). Gives a weakly textured surface fine grain without corners.
        public var noise = 0.0

        /// Tiles of `tile` pixels cut from `photos`, with the defaults above.
        public init(photos: [String], tile: Int) {
            self.photos = photos; self.tile = tile
        }
    }

    /// A `width` x `height` BGR texture in `style`, the same for the same `seed`.
    public static func make(width: Int, height: Int, style: Style, seed: UInt64) throws -> Image {
        precondition(width > 0 && height > 0 && style.tile > 0 && !style.photos.isEmpty)
        var random = SplitMix64(seed: seed)
        var grain = SplitMix64(seed: seed ^ 0x6E6F_6973_6500_0000)  // for `noise` only
        var library: [String: Image] = [:]
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for ty in stride(from: 0, to: height, by: style.tile) {
            for tx in stride(from: 0, to: width, by: style.tile) {
                let name = style.photos[Int(random.next() % UInt64(style.photos.count))]
                if library[name] == nil { library[name] = try PhotoLibrary.photo(name) }
                let photo = library[name]!
                let zoom = style.zoom.lowerBound + (style.zoom.upperBound - style.zoom.lowerBound) * random.nextUnit()
                let side = max(8, min(min(photo.width, photo.height), Int((Double(style.tile) * zoom).rounded())))
                let x0 = Int(random.nextUnit() * Double(photo.width - side + 1))
                let y0 = Int(random.nextUnit() * Double(photo.height - side + 1))
                let brightness = 1 + style.jitter * (2 * random.nextUnit() - 1)
                let piece = try photo.cropped(x: x0, y: y0, width: side, height: side).resized(width: style.tile, height: style.tile)
                let w = min(style.tile, width - tx), h = min(style.tile, height - ty)
                piece.withPixels { base, stride in
                    for y in 0..<h {
                        for x in 0..<w {
                            let p = base + y * stride + x * 3
                            let b = Double(p[0]), g = Double(p[1]), r = Double(p[2])
                            let gray = 0.114 * b + 0.587 * g + 0.299 * r
                            var shade = brightness
                            let joint = style.grout > 0 && (x < style.grout || y < style.grout)
                            if joint { shade *= style.groutLevel }
                            let colour = SIMD3(b, g, r)
                            let c = SIMD3(repeating: gray) + (colour - SIMD3(repeating: gray)) * style.saturation
                            var out = (SIMD3(repeating: 128) + (c - SIMD3(repeating: 128)) * style.contrast) * style.tint * shade
                            if style.noise > 0 { out += SIMD3(repeating: style.noise * (2 * grain.nextUnit() - 1)) }
                            let i = ((ty + y) * width + tx + x) * 3
                            for k in 0..<3 { pixels[i + k] = UInt8(max(0, min(255, out[k].rounded()))) }
                        }
                    }
                }
            }
        }
        return try Image.fromPixels(pixels, width: width, height: height, channels: 3)
    }
}
