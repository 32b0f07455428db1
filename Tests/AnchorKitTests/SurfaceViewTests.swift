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

    /// A camera pitched 45° down (ARKit gravity in its axes (0, -g cos 45°, -g sin 45°)): a 0.4 m
    /// square on the floor 1.5 m below, 1.3-1.7 m ahead, is a square in the view from gravity
    /// alone, its far side at the top and its left corners on the left (unmirrored).
    @Test func viewFromGravityShowsTheFloorUnforeshortened() throws {
        let pitch = -Double.pi / 4
        let worldFromCamera = Transform(rotation: .rotation(angle: pitch, axis: SIMD3(1, 0, 0)), translation: .zero)
        let gravity = worldFromCamera.rotation.transposed * SIMD3(0, -9.81, 0)
        let view = try #require(SurfaceView(levelSurfacesSeenWith: gravity, camera: Self.camera))
        #expect(view.width <= 800 && view.height <= 800)
        let viewFromFrame = try #require(view.frameFromView.inverse)
        // Far left, far right, near right, near left (world x, z; the floor at y = -1.5).
        let floor = [SIMD2(-0.2, -1.7), SIMD2(0.2, -1.7), SIMD2(0.2, -1.3), SIMD2(-0.2, -1.3)]
        let inView = try floor.map { xz -> SIMD2<Double> in
            let inFrame = try #require(Self.camera.project(worldFromCamera.inverse.apply(to: SIMD3(xz.x, -1.5, xz.y))))
            return Homography.map(viewFromFrame, inFrame)
        }
        let sides = (0..<4).map { length(inView[($0 + 1) % 4] - inView[$0]) }
        #expect(sides.allSatisfy { abs($0 - sides[0]) < 1e-6 * sides[0] }, "sides \(sides)")
        #expect(abs(length(inView[2] - inView[0]) - length(inView[3] - inView[1])) < 1e-6 * sides[0])
        #expect(inView[0].y < inView[3].y && inView[1].y < inView[2].y)  // far at the top
        #expect(inView[0].x < inView[1].x && inView[3].x < inView[2].x)  // left on the left
    }

    /// No view from gravity when no ray of the frame reaches 66° of straight down (a camera
    /// pitched 30° up), nor from no gravity.
    @Test func noViewFromGravityLookingUp() {
        let up = Transform(rotation: .rotation(angle: .pi / 6, axis: SIMD3(1, 0, 0)), translation: .zero)
        #expect(SurfaceView(levelSurfacesSeenWith: up.rotation.transposed * SIMD3(0, -9.81, 0), camera: Self.camera) == nil)
        #expect(SurfaceView(levelSurfacesSeenWith: .zero, camera: Self.camera) == nil)
    }

    /// The tracker's source of views: the view from gravity where it exists; the level planes'
    /// views from the camera given when gravity is unknown or gives none (looking up); nothing
    /// from an empty source or from planes without a camera.
    @Test func sourceGivesGravitysViewElseThePlanes() throws {
        let plane = Transform(translation: SIMD3(0, -1, -2))
        let planeView = try #require(SurfaceView(plane: plane, extent: SIMD2(1, 1), worldFromCamera: .identity, camera: Self.camera))
        let anchor = Anchor(identifier: "plane/0", kind: .plane, isTracked: true, transform: plane, extent: SIMD2(1, 1),
                            alignment: .horizontal)
        let down = Transform(rotation: .rotation(angle: -.pi / 4, axis: SIMD3(1, 0, 0)), translation: .zero)
        let downGravity = down.rotation.transposed * SIMD3(0, -9.81, 0)
        let fromGravity = try #require(SurfaceView(levelSurfacesSeenWith: downGravity, camera: Self.camera))
        #expect(SurfaceViewSource(gravity: downGravity, levelPlanes: [anchor], worldFromCamera: .identity).views(camera: Self.camera)
                    == [fromGravity])
        let up = Transform(rotation: .rotation(angle: .pi / 6, axis: SIMD3(1, 0, 0)), translation: .zero)
        let upGravity = up.rotation.transposed * SIMD3(0, -9.81, 0)
        #expect(SurfaceViewSource(gravity: upGravity, levelPlanes: [anchor], worldFromCamera: .identity).views(camera: Self.camera)
                    == [planeView])
        #expect(SurfaceViewSource(levelPlanes: [anchor], worldFromCamera: .identity).views(camera: Self.camera) == [planeView])
        #expect(SurfaceViewSource(levelPlanes: [anchor]).views(camera: Self.camera).isEmpty)
        #expect(SurfaceViewSource().views(camera: Self.camera).isEmpty)
    }
}
