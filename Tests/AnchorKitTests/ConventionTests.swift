import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitSynthesis

/// Transforms, the OpenCV <-> ARKit conventions, rotations and the pinhole camera
/// (../shared/FORMATS.md, "Conventions").
@Suite("Conventions")
struct ConventionTests {
    static let someRotation = Matrix3.rotation(angle: 0.7, axis: SIMD3(1, 2, -0.5))

    // MARK: Transform

    @Test func columnMajorLayoutPutsTranslationAt12To14() throws {
        let t = Transform(rotation: Self.someRotation, translation: SIMD3(1, 2, 3))
        let m = t.columnMajor
        #expect(m.count == 16)
        #expect(Array(m[12...14]) == [1, 2, 3])
        #expect(m[15] == 1)
        #expect([m[3], m[7], m[11]] == [0, 0, 0])
        // Column j holds the image of axis j: m[4*j + i] = R[i, j].
        for j in 0..<3 {
            for i in 0..<3 { #expect(m[4 * j + i] == Self.someRotation[i, j]) }
        }
        // And back again.
        let back = try Transform(columnMajor: m)
        #expect(back == t)
        #expect(back.translation == SIMD3(1, 2, 3))
    }

    @Test func pureTranslationFromColumnMajor() throws {
        var m = [Double](repeating: 0, count: 16)
        m[0] = 1; m[5] = 1; m[10] = 1; m[15] = 1
        m[12] = -0.25; m[13] = 0.5; m[14] = 4
        let t = try Transform(columnMajor: m)
        #expect(t.apply(to: SIMD3(1, 1, 1)) == SIMD3(0.75, 1.5, 5))
    }

    @Test func composeMapsThroughBothFrames() {
        let aFromB = Transform(rotation: .rotation(angle: .pi / 2, axis: SIMD3(0, 0, 1)), translation: SIMD3(1, 0, 0))
        let bFromC = Transform(rotation: .rotation(angle: 0.3, axis: SIMD3(1, 0, 0)), translation: SIMD3(0, 2, 0))
        let aFromC = aFromB * bFromC
        let p = SIMD3(0.3, -0.2, 1.1)
        #expect(isNear(aFromC.apply(to: p), aFromB.apply(to: bFromC.apply(to: p)), 1e-12))
        // Known case: B's origin (0, 2, 0) rotated 90° about z is (-2, 0, 0), then shifted by (1, 0, 0).
        #expect(isNear(aFromC.translation, SIMD3(-1, 0, 0), 1e-12))
    }

    @Test func inverseUndoesTheTransform() {
        let t = Transform(rotation: Self.someRotation, translation: SIMD3(0.4, -1.2, 2.5))
        let p = SIMD3(0.1, 0.2, 0.3)
        #expect(isNear(t.inverse.apply(to: t.apply(to: p)), p, 1e-12))
        #expect(isNear(t * t.inverse, .identity, 1e-12))
        #expect(isNear(t.inverse * t, .identity, 1e-12))
        // The inverse of a pure translation is the opposite translation.
        #expect(Transform(translation: SIMD3(1, 2, 3)).inverse.translation == SIMD3(-1, -2, -3))
    }

    /// A world made 2x larger about its origin: a point's image through the scaled transform is
    /// the doubled image of the halved point (scaling commutes with the rigid map).
    @Test func scalingTheWorldScalesOnlyTheTranslation() {
        let t = Transform(rotation: Self.someRotation, translation: SIMD3(0.4, -1.2, 2.5))
        let scaled = t.translationScaled(by: 2)
        #expect(scaled.rotation == t.rotation && scaled.translation == SIMD3(0.8, -2.4, 5))
        let p = SIMD3(0.1, 0.2, 0.3)
        #expect(isNear(scaled.apply(to: 2 * p), 2 * t.apply(to: p), 1e-12))
    }

    /// +y to +x is a quarter turn clockwise about +z seen from its tip; parallel vectors give the
    /// identity, opposite ones a half turn.
    @Test func leastRotationBetweenVectors() {
        let r = Matrix3.rotation(from: SIMD3(0, 1, 0), to: SIMD3(1, 0, 0))
        #expect(length(r * SIMD3(0, 1, 0) - SIMD3(1, 0, 0)) < 1e-12)
        #expect(length(r * SIMD3(0, 0, 1) - SIMD3(0, 0, 1)) < 1e-12)
        #expect(length(r * SIMD3(1, 0, 0) - SIMD3(0, -1, 0)) < 1e-12)
        #expect(Matrix3.rotation(from: SIMD3(0, 1, 0), to: SIMD3(0, 1, 0)) == .identity)
        #expect(length(Matrix3.rotation(from: SIMD3(0, 1, 0), to: SIMD3(0, -1, 0)) * SIMD3(0, 1, 0) - SIMD3(0, -1, 0)) < 1e-12)
    }

    @Test func isCloseToleratesRounding() {
        // Products that differ only by rounding (~1e-16) are "close" with the default tolerances.
        var rng = SplitMix64(seed: 5)
        func random() -> Transform {
            Transform(rotation: .exp(SIMD3(rng.nextUnit() * 2 - 1, rng.nextUnit() * 2 - 1, rng.nextUnit() * 2 - 1)),
                      translation: SIMD3(rng.nextUnit(), rng.nextUnit(), rng.nextUnit()))
        }
        var notClose = 0
        for _ in 0..<200 {
            let a = random(), b = random(), c = random()
            #expect(isNear((a * b) * c, a * (b * c), 1e-14))
            if !((a * b) * c).isClose(to: a * (b * c)) { notClose += 1 }
        }
        #expect(notClose == 0, "isClose(to:) with default tolerances failed for \(notClose) of 200 products equal up to rounding")
    }

    @Test func wrongCountIsRejected() {
        let error = #expect(throws: TransformError.self) { try Transform(columnMajor: [Double](repeating: 0, count: 15)) }
        guard case .wrongCount(15)? = error else {
            Issue.record("expected wrongCount(15), got \(String(describing: error))")
            return
        }
        #expect(String(describing: error!).contains("16"))
    }

    @Test func nanIsRejected() {
        var m = Transform.identity.columnMajor
        m[13] = .nan
        let error = #expect(throws: TransformError.self) { try Transform(columnMajor: m) }
        guard case .notFinite? = error else {
            Issue.record("expected notFinite, got \(String(describing: error))")
            return
        }
        m[13] = .infinity
        #expect(throws: TransformError.self) { try Transform(columnMajor: m) }
    }

    @Test(arguments: [
        ("scaled", Transform(rotation: .diagonal(SIMD3(2, 1, 1)), translation: .zero).columnMajor),
        ("reflection", Transform(rotation: .diagonal(SIMD3(1, 1, -1)), translation: .zero).columnMajor),
        ("sheared", Transform(rotation: Matrix3(rows: SIMD3(1, 0.1, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), translation: .zero).columnMajor),
        ("last row", { var m = Transform.identity.columnMajor; m[3] = 0.5; return m }()),
        ("w not 1", { var m = Transform.identity.columnMajor; m[15] = 2; return m }()),
    ])
    func nonRigidIsRejected(_ name: String, _ m: [Double]) {
        let error = #expect(throws: TransformError.self, "\(name)") { try Transform(columnMajor: m) }
        guard case .notRigid? = error else {
            Issue.record("\(name): expected notRigid, got \(String(describing: error))")
            return
        }
    }

    @Test func nearlyOrthonormalIsAccepted() throws {
        // Rounding in files (e.g. 6 significant digits) must not make a rotation "non-rigid".
        let m = Transform(rotation: Self.someRotation, translation: SIMD3(1, 2, 3)).columnMajor
            .map { ($0 * 1e6).rounded() / 1e6 }
        _ = try Transform(columnMajor: m)
    }

    // MARK: Camera and target conventions

    @Test func flipMapsOpenCVForwardToARKitMinusZ() {
        #expect(CameraConvention.flip.apply(to: SIMD3(0, 0, 2)) == SIMD3(0, 0, -2))
        #expect(CameraConvention.flipped(SIMD3(0, 0, 2)) == SIMD3(0, 0, -2))
        // OpenCV +y (down) is ARKit -y.
        #expect(CameraConvention.flip.apply(to: SIMD3(1, 1, 0)) == SIMD3(1, -1, 0))
        // Its own inverse.
        #expect((CameraConvention.flip * CameraConvention.flip).isClose(to: .identity))
    }

    @Test func arkitCameraFromOpenCV() {
        let opencvFromX = Transform(rotation: Self.someRotation, translation: SIMD3(0.1, 0.2, 1.5))
        let arkit = CameraConvention.arkitCamera(fromOpenCV: opencvFromX)
        let p = SIMD3(0.3, 0.1, -0.2)
        #expect(isNear(arkit.apply(to: p), CameraConvention.flipped(opencvFromX.apply(to: p)), 1e-12))
    }

    /// A marker facing the camera 1 m ahead with its top edge up, as OpenCV's solvePnP reports it.
    static let facingMarkerOpenCV = Transform(rotation: .diagonal(SIMD3(1, -1, -1)), translation: SIMD3(0, 0, 1))

    @Test func cameraFromAnchorOfAFacingMarker() {
        let pose = TargetConvention.cameraFromAnchor(opencvCameraFromTarget: Self.facingMarkerOpenCV)
        // 1 m ahead: ARKit looks along -z.
        #expect(isNear(pose.translation, SIMD3(0, 0, -1), 1e-12))
        let r = pose.rotation
        // Anchor +x (right edge) stays camera +x (right).
        #expect(isNear(r * SIMD3(1, 0, 0), SIMD3(1, 0, 0), 1e-12))
        // Anchor +y (out of the face) points toward the camera: ARKit +z.
        #expect(isNear(r * SIMD3(0, 1, 0), SIMD3(0, 0, 1), 1e-12))
        // Anchor +z (toward the bottom edge) points down: ARKit -y.
        #expect(isNear(r * SIMD3(0, 0, 1), SIMD3(0, -1, 0), 1e-12))
        #expect(abs(r.determinant - 1) < 1e-12)
    }

    @Test func targetCornersAreTLTRBRBLInTheImage() throws {
        let camera = MarkerScenes.standardCamera()
        let pose = TargetConvention.cameraFromAnchor(opencvCameraFromTarget: Self.facingMarkerOpenCV)
        let corners = TargetConvention.corners(width: 0.2, height: 0.1)
        #expect(corners.count == 4)
        // The target lies in the anchor's x-z plane.
        #expect(corners.allSatisfy { $0.y == 0 })
        let pixels = try corners.map { try #require(camera.project(pose.apply(to: $0))) }
        let cx = camera.cx, cy = camera.cy
        #expect(pixels[0].x < cx && pixels[0].y < cy, "top-left \(pixels[0])")
        #expect(pixels[1].x > cx && pixels[1].y < cy, "top-right \(pixels[1])")
        #expect(pixels[2].x > cx && pixels[2].y > cy, "bottom-right \(pixels[2])")
        #expect(pixels[3].x < cx && pixels[3].y > cy, "bottom-left \(pixels[3])")
        // Width 0.2 m at 1 m with f = 525 px: 105 px; height 52.5 px.
        #expect(abs((pixels[1].x - pixels[0].x) - 105) < 1e-9)
        #expect(abs((pixels[3].y - pixels[0].y) - 52.5) < 1e-9)
        // Clockwise in the image (y down): positive shoelace area in pixel coordinates.
        var area = 0.0
        for i in 0..<4 { let a = pixels[i], b = pixels[(i + 1) % 4]; area += a.x * b.y - b.x * a.y }
        #expect(area > 0)
    }

    // MARK: Rotations

    @Test(arguments: [
        SIMD3<Double>(0, 0, 0), SIMD3(1e-7, -2e-7, 3e-8), SIMD3(0.1, 0.2, 0.3), SIMD3(-1, 0.5, 2) / 2,
        SIMD3(0, 0, 3.0), SIMD3(1, 1, 1) * (3.1 / 3.0.squareRoot()), SIMD3(0, -3.14159, 0),
    ])
    func expLogRoundTrip(_ v: SIMD3<Double>) {
        let r = Matrix3.exp(v)
        #expect(abs(r.determinant - 1) < 1e-12)
        #expect(isNear(r.transposed * r, .identity, 1e-12))
        #expect(abs(r.rotationAngle - length(v)) < 1e-6)
        let back = r.log
        #expect(isNear(back, v, 1e-6), "log(exp(\(v))) = \(back)")
        #expect(isNear(Matrix3.exp(back), r, 1e-9))
    }

    @Test func expIsARightHandedRotation() {
        // 90° about z maps x to y.
        let r = Matrix3.exp(SIMD3(0, 0, .pi / 2))
        #expect(isNear(r * SIMD3(1, 0, 0), SIMD3(0, 1, 0), 1e-12))
    }

    // MARK: Pinhole camera

    static let distorted = try! CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 505, cx: 318.2, cy: 243.7,
                                                 distortion: [-0.2, 0.05, 0.001, -0.001])

    @Test func opticalAxisProjectsToThePrincipalPoint() throws {
        for camera in [Self.distorted, MarkerScenes.standardCamera()] {
            let p = try #require(camera.project(SIMD3(0, 0, -1.7)))
            #expect(isNear(p, SIMD2(camera.cx, camera.cy), 1e-12))
        }
    }

    @Test func pointsBehindTheCameraDoNotProject() {
        #expect(Self.distorted.project(SIMD3(0, 0, 1)) == nil)
        #expect(Self.distorted.project(SIMD3(0.1, 0.1, 0)) == nil)
    }

    @Test func projectUnprojectRoundTripWithDistortion() throws {
        let camera = Self.distorted
        for u in stride(from: 0.0, through: 639, by: 80) {
            for v in stride(from: 0.0, through: 479, by: 60) {
                let pixel = SIMD2(u, v)
                let p = camera.unproject(pixel, depth: 0.8)
                #expect(abs(p.z + 0.8) < 1e-12, "depth is along -z")
                let back = try #require(camera.project(p))
                #expect(isNear(back, pixel, 1e-6), "pixel \(pixel) -> \(p) -> \(back)")
            }
        }
        // And from space: a point projects and unprojects at its depth to itself.
        let q = SIMD3(0.12, -0.07, -0.6)
        let pixel = try #require(camera.project(q))
        #expect(isNear(camera.unproject(pixel, depth: 0.6), q, 1e-9))
    }

    @Test func distortionMovesOffAxisPoints() throws {
        // With k1 < 0 (barrel), an off-axis point lands closer to the centre than without.
        var pinhole = Self.distorted
        pinhole.distortion = []
        let q = SIMD3(0.3, 0.2, -1.0)
        let d = try #require(Self.distorted.project(q)), p = try #require(pinhole.project(q))
        let centre = SIMD2(pinhole.cx, pinhole.cy)
        #expect(length(d - centre) < length(p - centre))
        // ARKit +y is up: a point above the axis has v < cy.
        #expect(p.y < pinhole.cy && p.x > pinhole.cx)
    }

    @Test func projectionMatrixMapsPixelCentresToNDC() throws {
        let camera = try CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 530, cx: 310.3, cy: 250.9)
        let m = camera.projectionMatrix(zNear: 0.01, zFar: 100)
        func clip(_ p: SIMD3<Double>) -> SIMD4<Double> { m * SIMD4(p, 1) }
        let w = Double(camera.width), h = Double(camera.height)
        for (u, v, depth) in [(0.0, 0.0, 1.0), (639.0, 479.0, 2.5), (100.0, 400.0, 0.3), (camera.cx, camera.cy, 5.0)] {
            let p = camera.unproject(SIMD2(u, v), depth: depth)
            let c = clip(p)
            #expect(abs(c.w - depth) < 1e-9, "w is the distance along -z")
            let ndc = SIMD2(c.x / c.w, c.y / c.w)
            let expected = SIMD2((2 * u + 1) / w - 1, 1 - (2 * v + 1) / h)
            #expect(isNear(ndc, expected, 1e-9), "pixel (\(u), \(v)): NDC \(ndc), expected \(expected)")
            #expect(abs(c.z / c.w) <= 1)
        }
        // Depth range: the near plane maps to -1 and the far plane to +1.
        let near = clip(SIMD3(0, 0, -0.01)), far = clip(SIMD3(0, 0, -100))
        #expect(abs(near.z / near.w + 1) < 1e-9)
        #expect(abs(far.z / far.w - 1) < 1e-9)
    }

    @Test func projectionMatrixCornersOfTheImage() {
        // The image's outer edges (pixel -0.5 and W - 0.5) map to NDC -1 and +1.
        let camera = MarkerScenes.standardCamera()
        let m = camera.projectionMatrix()
        let p = camera.unproject(SIMD2(-0.5, -0.5), depth: 1)
        let c = m * SIMD4(p, 1)
        #expect(abs(c.x / c.w + 1) < 1e-9 && abs(c.y / c.w - 1) < 1e-9)
        // Column-major: the numbers an engine uploads, column by column.
        #expect(m.columnMajor[0] == m.columns.0.x && m.columnMajor[8] == m.columns.2.x && m.columnMajor[11] == -1)
    }

    /// A model matrix scales content along the anchor's own axes before placing it: a unit quad
    /// corner (1, 0, 1) on an anchor turned 90 degrees about y and 2 m ahead, scaled to 20 cm,
    /// lands 0.2 m along the anchor's x and z. The Float bridge keeps the column order.
    @Test func modelMatrixScalesInTheAnchorsFrame() {
        let anchor = Transform(rotation: Matrix3.exp(SIMD3(0, Double.pi / 2, 0)), translation: SIMD3(0, 0, -2))
        let model = anchor.modelMatrix(scale: SIMD3(0.2, 0.2, 0.2))
        let corner = model * SIMD4(1, 0, 1, 1)
        let expected = anchor.apply(to: SIMD3(0.2, 0, 0.2))
        #expect(length(SIMD3(corner.x, corner.y, corner.z) - expected) < 1e-12 && corner.w == 1)
        let float = model.floatColumns
        #expect(float.3 == SIMD4<Float>(0, 0, -2, 1))
        #expect(abs(Double(float.0.z) - model.columns.0.z) < 1e-7)
        #expect(anchor.matrix.columnMajor == anchor.columnMajor)
    }

    /// A reference image facing the camera 1 m ahead, upright: in OpenCV's image-target frame
    /// (+y down the picture, +z into it) that is R = I, t = (0, 0, 1). Its anchor must sit at
    /// ARKit (0, 0, -1) with +y (out of the face) toward the camera and +z (down the picture) down.
    @Test func imageTargetConventionOnAKnownCase() {
        let pose = TargetConvention.cameraFromAnchor(opencvCameraFromTarget: Transform(translation: SIMD3(0, 0, 1)),
                                                     targetFromAnchor: TargetConvention.opencvImageFromAnchor)
        #expect(length(pose.translation - SIMD3(0, 0, -1)) < 1e-12)
        #expect(length(pose.rotation.columns.1 - SIMD3(0, 0, 1)) < 1e-12)
        #expect(length(pose.rotation.columns.2 - SIMD3(0, -1, 0)) < 1e-12)
        #expect(length(pose.rotation.columns.0 - SIMD3(1, 0, 0)) < 1e-12)
    }
}
