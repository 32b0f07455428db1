import AnchorKitCV

/// An 8-bit image owned by the OpenCV layer: 1 channel (gray) or 3 channels (BGR, OpenCV's
/// order); overlay pictures may have 4 (BGRA, straight alpha). Pixel coordinates: origin at the top-left pixel's centre, x right, y down.
///
/// Immutable once made, so it can be shared between threads.
public final class Image: @unchecked Sendable {
    package let handle: OpaquePointer

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// 1 (gray), 3 (BGR) or 4 (BGRA).
    public let channels: Int

    /// Takes ownership of a shim image handle.
    package init(taking handle: OpaquePointer) {
        self.handle = handle
        var w: Int32 = 0, h: Int32 = 0, c: Int32 = 0
        ak_image_info(handle, &w, &h, &c)
        width = Int(w); height = Int(h); channels = Int(c)
    }

    deinit { ak_image_free(handle) }

    /// Runs a shim call that produces an image, and wraps its result.
    package static func make(_ context: @autoclosure () -> String = "",
                     _ body: (UnsafeMutablePointer<OpaquePointer?>) -> ak_status) throws -> Image {
        var out: OpaquePointer?
        try NativeError.check(body(&out), context())
        guard let out else { throw NativeError(kind: .internalError, message: "\(context()): no image returned") }
        return Image(taking: out)
    }

    /// Decodes an image file (PNG, JPEG, TIFF, ...; sizes checked from the header first, cut or
    /// corrupt PNGs and JPEGs refused) as gray (`channels: 1`), BGR (`channels: 3`) or
    /// BGRA (`channels: 4`; a file without alpha is opaque).
    public convenience init(contentsOf path: String, channels: Int = 3) throws {
        var out: OpaquePointer?
        do { try NativeError.check(ak_image_read(path, Int32(channels), &out)) } catch let e as NativeError {
            throw InputError(path, native: e)
        }
        self.init(taking: out!)
    }

    /// The pixel size stated in an image file's header, read without decoding it. Throws an
    /// ``InputError`` naming the file when it is missing, in no supported format, or too large.
    public static func headerSize(of path: String) throws -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0
        do { try NativeError.check(ak_image_probe(path, &width, &height)) } catch let e as NativeError {
            throw InputError(path, native: e)
        }
        return (Int(width), Int(height))
    }

    /// An image filled with one gray level (0...255).
    public static func filled(width: Int, height: Int, channels: Int = 3, value: UInt8) throws -> Image {
        try make("image \(width)x\(height)") {
            ak_image_create(Int32(width), Int32(height), Int32(channels), nil, 0, value, $0)
        }
    }

    /// An image from tightly packed 8-bit pixels (`width * channels` bytes per row).
    public static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, channels: Int) throws -> Image {
        try pixels.withUnsafeBufferPointer { buffer in
            try make("image \(width)x\(height)") {
                ak_image_create(Int32(width), Int32(height), Int32(channels), buffer.baseAddress,
                                width * channels, 0, $0)
            }
        }
    }

    /// A copy with `channels` channels (1 gray, 3 BGR, 4 BGRA).
    public func converted(toChannels channels: Int) throws -> Image {
        if channels == self.channels { return self }
        return try Image.make("convert") { ak_image_convert(handle, Int32(channels), $0) }
    }

    /// A resized copy (area averaging when shrinking).
    public func resized(width: Int, height: Int) throws -> Image {
        try Image.make("resize") { ak_image_resize(handle, Int32(width), Int32(height), $0) }
    }

    /// The `width` x `height` image whose pixel (u, v) is this image at `sourceFromResult` (u, v)
    /// (a homography, pixel centres at integers); mid-gray where it lands outside this image.
    public func warped(by sourceFromResult: Matrix3, width: Int, height: Int) throws -> Image {
        let h = sourceFromResult.rowMajor
        return try Image.make("warp") { ak_image_warp_perspective(handle, h, Int32(width), Int32(height), $0) }
    }

    /// A copy blurred as by a camera moving by `motion` (pixels, x right, y down) during the
    /// exposure: each pixel averaged along that segment, centred on it (at most 256 px long).
    public func motionBlurred(by motion: SIMD2<Double>) throws -> Image {
        try Image.make("motion blur") { ak_image_motion_blur(handle, motion.x, motion.y, $0) }
    }

    /// A copy of the rectangle at (x, y) of `width` x `height` pixels (clipped to the image).
    public func cropped(x: Int, y: Int, width: Int, height: Int) throws -> Image {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(self.width, x + width), y1 = min(self.height, y + height)
        guard x1 > x0, y1 > y0 else { throw NativeError(kind: .invalidArgument, message: "crop outside the image") }
        var pixels = [UInt8](repeating: 0, count: (x1 - x0) * (y1 - y0) * channels)
        withPixels { base, stride in
            for row in y0..<y1 {
                for i in 0..<((x1 - x0) * channels) { pixels[(row - y0) * (x1 - x0) * channels + i] = base[row * stride + x0 * channels + i] }
            }
        }
        return try Image.fromPixels(pixels, width: x1 - x0, height: y1 - y0, channels: channels)
    }

    /// Encodes to a file whose extension names the format (.png, .jpg, ...).
    public func write(to path: String) throws {
        try NativeError.check(ak_image_write(handle, path), path)
    }

    /// Reads the pixels row by row. `body` receives the first row and the row stride in bytes.
    public func withPixels<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        var stride = 0
        let base = ak_image_pixels(handle, &stride)!
        return try withExtendedLifetime(self) { try body(base, stride) }
    }

    /// The value of channel `channel` at pixel (x, y).
    public func pixel(x: Int, y: Int, channel: Int = 0) -> UInt8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height && channel < channels)
        return withPixels { base, stride in base[y * stride + x * channels + channel] }
    }
}
