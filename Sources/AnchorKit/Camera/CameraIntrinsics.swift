import Foundation

/// A pinhole camera with OpenCV's lens distortion, for images of `width` x `height` pixels.
///
/// Pixel coordinates follow OpenCV: origin at the top-left pixel's centre, x right, y down.
/// Camera-space points given to or returned by ``project(_:)`` and ``unproject(_:depth:)`` use
/// ARKit's convention (+y up, the camera looks along -z; see `CameraConvention`).
public struct CameraIntrinsics: Equatable, Sendable, Codable {
    /// Image width and height in pixels.
    public var width: Int
    public var height: Int
    /// Focal lengths in pixels.
    public var fx: Double
    public var fy: Double
    /// Principal point in pixels.
    public var cx: Double
    public var cy: Double
    /// OpenCV's distortion coefficients k1, k2, p1, p2, k3 (missing ones are 0).
    public var distortion: [Double]

    /// Makes intrinsics and validates them (see ``validate()``).
    public init(width: Int, height: Int, fx: Double, fy: Double, cx: Double, cy: Double,
                distortion: [Double] = []) throws {
        self.width = width; self.height = height
        self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy
        self.distortion = distortion
        try validate()
    }

    enum CodingKeys: String, CodingKey { case width, height, fx, fy, cx, cy, distortion }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            width: c.decode(Int.self, forKey: .width), height: c.decode(Int.self, forKey: .height),
            fx: c.decode(Double.self, forKey: .fx), fy: c.decode(Double.self, forKey: .fy),
            cx: c.decode(Double.self, forKey: .cx), cy: c.decode(Double.self, forKey: .cy),
            distortion: c.decodeIfPresent([Double].self, forKey: .distortion) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(width, forKey: .width); try c.encode(height, forKey: .height)
        try c.encode(fx, forKey: .fx); try c.encode(fy, forKey: .fy)
        try c.encode(cx, forKey: .cx); try c.encode(cy, forKey: .cy)
        if !distortion.isEmpty { try c.encode(distortion, forKey: .distortion) }
    }

    /// Checks that the numbers describe a usable camera: positive size (at most 16384 px a side),
    /// focal lengths within `Plausible.focalLengthPerSide` of the larger side, a principal
    /// point inside the image, and 0, 4 or 5 finite distortion coefficients of at most
    /// `Plausible.distortionMagnitude`.
    public func validate() throws {
        func fail(_ why: String) -> IntrinsicsError { IntrinsicsError(message: why) }
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw fail("image size \(width)x\(height) is not a usable camera size")
        }
        let side = Double(max(width, height))
        let focal = Plausible.focalLengthPerSide.lowerBound * side...Plausible.focalLengthPerSide.upperBound * side
        guard focal.contains(fx), focal.contains(fy) else {
            throw fail("focal lengths fx=\(fx) fy=\(fy) must be positive, within \(focal.lowerBound)...\(focal.upperBound) pixels for a \(width)x\(height) image")
        }
        guard cx.isFinite, cy.isFinite, cx >= -0.5, cy >= -0.5, cx <= Double(width) - 0.5, cy <= Double(height) - 0.5 else {
            throw fail("principal point (\(cx), \(cy)) lies outside the \(width)x\(height) image")
        }
        guard [0, 4, 5].contains(distortion.count) else {
            throw fail("distortion needs 4 or 5 numbers (k1, k2, p1, p2[, k3]), got \(distortion.count)")
        }
        guard distortion.allSatisfy({ abs($0) <= Plausible.distortionMagnitude }) else {
            throw fail("distortion coefficients \(distortion) must be finite and at most \(Plausible.distortionMagnitude) in magnitude")
        }
    }

    /// Throws unless these intrinsics are for `width` x `height` frames.
    public func checkMatches(width frameWidth: Int, height frameHeight: Int) throws {
        guard frameWidth == width, frameHeight == height else {
            throw IntrinsicsError(message: "intrinsics are for \(width)x\(height) images but the frames are \(frameWidth)x\(frameHeight)")
        }
    }

    /// The five distortion coefficients, zero-padded.
    public var distortion5: [Double] { (distortion + [0, 0, 0, 0, 0]).prefix(5).map { $0 } }

    /// True if any distortion coefficient is non-zero.
    public var hasDistortion: Bool { distortion.contains { $0 != 0 } }

    /// The 3x3 camera matrix K (OpenCV convention).
    public var matrix: Matrix3 {
        Matrix3(rows: SIMD3(fx, 0, cx), SIMD3(0, fy, cy), SIMD3(0, 0, 1))
    }

    // MARK: Projection

    /// Projects a point in ARKit camera space (metres; the camera looks along -z) to a pixel,
    /// applying distortion. Returns nil for points not in front of the camera.
    public func project(_ p: SIMD3<Double>) -> SIMD2<Double>? {
        project(opencvCameraPoint: CameraConvention.flipped(p))
    }

    /// The pixel (as the frames show it, with distortion) where a point in OpenCV camera space
    /// (+x right, +y down, +z forward) appears; nil behind the camera.
    func project(opencvCameraPoint q: SIMD3<Double>) -> SIMD2<Double>? {
        guard q.z > 1e-9 else { return nil }
        let d = distort(SIMD2(q.x / q.z, q.y / q.z))
        return SIMD2(fx * d.x + cx, fy * d.y + cy)
    }

    /// The ARKit-camera-space point at `depth` metres in front of the camera (along -z) that
    /// projects to `pixel`, removing distortion.
    public func unproject(_ pixel: SIMD2<Double>, depth: Double) -> SIMD3<Double> {
        let n = undistort(SIMD2((pixel.x - cx) / fx, (pixel.y - cy) / fy))
        return CameraConvention.flipped(SIMD3(n.x * depth, n.y * depth, depth))
    }

    /// OpenCV's distortion model on normalised coordinates (x/z, y/z, OpenCV convention).
    func distort(_ n: SIMD2<Double>) -> SIMD2<Double> {
        guard hasDistortion else { return n }
        let k = distortion5
        let r2 = n.x * n.x + n.y * n.y
        let radial = 1 + k[0] * r2 + k[1] * r2 * r2 + k[4] * r2 * r2 * r2
        let x = n.x * radial + 2 * k[2] * n.x * n.y + k[3] * (r2 + 2 * n.x * n.x)
        let y = n.y * radial + k[2] * (r2 + 2 * n.y * n.y) + 2 * k[3] * n.x * n.y
        return SIMD2(x, y)
    }

    /// Inverts ``distort(_:)`` by fixed-point iteration (as OpenCV's undistortPoints does).
    func undistort(_ d: SIMD2<Double>) -> SIMD2<Double> {
        guard hasDistortion else { return d }
        var n = d
        for _ in 0..<20 {
            let e = distort(n) - d
            n -= e
            if length(e) < 1e-12 { break }
        }
        return n
    }

    /// Where a distortion-free pinhole camera with the same fx, fy, cx, cy sees what this camera
    /// sees at `pixel` (the pixels pinhole geometry such as PnP and bundle adjustment expects).
    public func pinholePixel(_ pixel: SIMD2<Double>) -> SIMD2<Double> {
        guard hasDistortion else { return pixel }
        let n = undistort(SIMD2((pixel.x - cx) / fx, (pixel.y - cy) / fy))
        return SIMD2(n.x * fx + cx, n.y * fy + cy)
    }

    /// ``pinholePixel(_:)`` of a single-precision pixel (tracked points, features).
    func idealPixel(_ p: SIMD2<Float>) -> SIMD2<Float> { SIMD2<Float>(pinholePixel(SIMD2<Double>(p))) }

    // MARK: Display: orientation, viewport, projection matrix

    /// The intrinsics of the image as a display shows it in `orientation` (rotated clockwise by
    /// quarter turns): width and height swap for portrait, and the principal point follows the
    /// rotation. Pixel centres stay at integers: turning (u, v) clockwise gives (H - 1 - v, u).
    public func rotated(for orientation: InterfaceOrientation) -> CameraIntrinsics {
        let w = Double(width), h = Double(height)
        var r = self
        r.distortion = []  // a rotated distortion model is not OpenCV's: display geometry is pinhole
        switch orientation.clockwiseRotation {
        case 1: (r.width, r.height, r.fx, r.fy, r.cx, r.cy) = (height, width, fy, fx, h - 1 - cy, cx)
        case 2: (r.cx, r.cy) = (w - 1 - cx, h - 1 - cy)
        case 3: (r.width, r.height, r.fx, r.fy, r.cx, r.cy) = (height, width, fy, fx, cy, w - 1 - cx)
        default: break
        }
        return r
    }

    /// How the oriented image fills a viewport of `viewportSize` points (ARKit's aspect fill:
    /// scaled to cover the viewport, centred, the overflow cropped): `point = scale * (u + 0.5) -
    /// offset` per axis, where (u, v) is a pixel of ``rotated(for:)`` (centres at integers) and
    /// viewport points run from (0, 0) at the top-left corner to `viewportSize`.
    public func viewportMapping(for orientation: InterfaceOrientation, viewportSize: SIMD2<Double>) -> (scale: Double, offset: SIMD2<Double>) {
        let image = rotated(for: orientation)
        let size = SIMD2(Double(image.width), Double(image.height))
        let scale = max(viewportSize.x / size.x, viewportSize.y / size.y)
        return (scale, (scale * size - viewportSize) / 2)
    }

    /// The viewport point (top-left origin, `viewportSize` points wide and high) where the image
    /// pixel `pixel` (this camera's frame, OpenCV's pixel centres at integers) is shown in
    /// `orientation` with aspect fill. With the image's own size and `.landscapeRight` it is
    /// `pixel + 0.5` (a pixel's centre sits half a point into it).
    public func viewportPoint(ofPixel pixel: SIMD2<Double>, orientation: InterfaceOrientation, viewportSize: SIMD2<Double>) -> SIMD2<Double> {
        let w = Double(width), h = Double(height)
        let turned: SIMD2<Double>
        switch orientation.clockwiseRotation {
        case 1: turned = SIMD2(h - 1 - pixel.y, pixel.x)
        case 2: turned = SIMD2(w - 1 - pixel.x, h - 1 - pixel.y)
        case 3: turned = SIMD2(pixel.y, w - 1 - pixel.x)
        default: turned = pixel
        }
        let (scale, offset) = viewportMapping(for: orientation, viewportSize: viewportSize)
        return scale * (turned + 0.5) - offset
    }

    /// The OpenGL-style projection matrix for a viewport of
    /// `viewportSize` points showing the image in `orientation` with aspect fill
    /// (`ARCamera.projectionMatrix(for:viewportSize:zNear:zFar:)`). It maps the display camera's
    /// space (``InterfaceOrientation/displayFromCamera`` applied to ARKit camera space; see
    /// ``CameraState/viewMatrix(for:)``) to clip space: NDC x, y in [-1, 1] with y up, so that a
    /// point lands at NDC (2 X / W - 1, 1 - 2 Y / H) where (X, Y) is its viewport point, and z
    /// in [-1, 1] between `zNear` and `zFar` (metres). Distortion is ignored.
    public func projectionMatrix(for orientation: InterfaceOrientation, viewportSize: SIMD2<Double>,
                                 zNear: Double = 0.001, zFar: Double = 1000) -> Matrix4 {
        let k = rotated(for: orientation)
        let (s, o) = viewportMapping(for: orientation, viewportSize: viewportSize)
        let vw = viewportSize.x, vh = viewportSize.y
        // X = s (fx x / -z + cx + 0.5) - ox and NDC x = 2 X / W - 1; times w_clip = -z.
        let a = 2 * s * k.fx / vw, b = 2 * s * k.fy / vh
        let c = 1 - (2 * s * (k.cx + 0.5) - 2 * o.x) / vw   // column 2, row 0
        let d = (2 * s * (k.cy + 0.5) - 2 * o.y) / vh - 1   // column 2, row 1
        let e = -(zFar + zNear) / (zFar - zNear)
        let f = -2 * zFar * zNear / (zFar - zNear)
        return Matrix4(columns: (SIMD4(a, 0, 0, 0), SIMD4(0, b, 0, 0), SIMD4(c, d, e, -1), SIMD4(0, 0, f, 0)))
    }

    /// ``projectionMatrix(for:viewportSize:zNear:zFar:)`` for the image as captured
    /// (`.landscapeRight`, a viewport of the image's size): pixel centre (u, v) lands at NDC
    /// ((2u + 1) / W - 1, 1 - (2v + 1) / H).
    public func projectionMatrix(zNear: Double = 0.001, zFar: Double = 1000) -> Matrix4 {
        projectionMatrix(for: .landscapeRight, viewportSize: SIMD2(Double(width), Double(height)), zNear: zNear, zFar: zFar)
    }
}

/// Intrinsics that cannot describe a usable camera, or that disagree with the frames.
public struct IntrinsicsError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
