import Testing
@testable import AnchorKit

/// A level plane's top view (``SurfaceView``): the conversion from the plane's ARKit axes to the
/// frame's pixels, on a known case.
@Suite("Surface views")
struct SurfaceViewTests {
    static let camera = try! CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 525, cx: 319.5, cy: 239.5)

    /// A 1 x 0.5 m plane 1 m below a camera at the origin (looking along -z), centred 2 m ahead,
    /// turned 30° about +y: each corner of the view lands where the camera projects that corner of
    /// the plane, at the frame's scale at the plane's centre (525 px / 2 m), unmirrored.
    @Test func viewCornersLandOnThePlanesCorners() throws {
        let plane = Transform(rotation: .rotation(angle: .pi / 6, axis: SIMD3(0, 1, 0)), translation: SIMD3(0, -1, -2))
        let extent = SIMD2(1.0, 0.5)
        let view = try #require(SurfaceView(plane: plane, extent: extent, worldFromCamera: .identity, camera: Self.camera))
        #expect(view.width == 263 && view.height == 131)  // 262.5 and 131.25 px
        let ppm = 525.0 / 2
        let corners: [(SIMD2<Double>, SIMD3<Double>)] = [(SIMD2(-0.5, -0.5), SIMD3(-0.5, 0, -0.25)),
                                                         (SIMD2(-0.5 + 1 * ppm, -0.5), SIMD3(0.5, 0, -0.25)),
                                                         (SIMD2(-0.5 + 1 * ppm, -0.5 + 0.5 * ppm), SIMD3(0.5, 0, 0.25)),
                                                         (SIMD2(-0.5, -0.5 + 0.5 * ppm), SIMD3(-0.5, 0, 0.25))]
        var outline: [SIMD2<Double>] = []
        for (pixel, onPlane) in corners {
            let expected = try #require(Self.camera.project(plane.apply(to: onPlane)))
            let mapped = Homography.map(view.frameFromView, pixel)
            #expect(length(mapped - expected) < 1e-9, "\(pixel) -> \(mapped), expected \(expected)")
            outline.append(mapped)
        }
        // Unmirrored: the view's corners go round the same way in the frame (clockwise, y down).
        #expect(ConvexPolygon.area(outline) > 0 && ConvexPolygon.isConvex(outline))
        let turn = { (a: SIMD2<Double>, b: SIMD2<Double>, c: SIMD2<Double>) in (b - a).x * (c - b).y - (b - a).y * (c - b).x }
        #expect(turn(outline[0], outline[1], outline[2]) > 0)
    }

    /// No view of a plane the camera is below (a ceiling would be seen mirrored from above), nor of
    /// one partly behind the camera.
    @Test func noViewFromBelowOrBehind() {
        let ceiling = Transform(translation: SIMD3(0, 1, -2))
        #expect(SurfaceView(plane: ceiling, extent: SIMD2(1, 1), worldFromCamera: .identity, camera: Self.camera) == nil)
        let underfoot = Transform(translation: SIMD3(0, -1, 0))
        #expect(SurfaceView(plane: underfoot, extent: SIMD2(2, 2), worldFromCamera: .identity, camera: Self.camera) == nil)
    }
}
