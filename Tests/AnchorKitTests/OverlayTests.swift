import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitRendering

/// Overlays: camera matrices for engines (orientations, viewports), overlay geometry, compositing
/// (known cases, and measured corners on the committed sequences), and `anchorkit render`.
@Suite("Overlays")
struct OverlayTests {
    static let camera = try! CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 500, cx: 319.5, cy: 239.5)

    // MARK: Camera matrices

    /// Portrait shows the landscape image turned clockwise: a point right of the optical axis
    /// (image +u) appears below the display's centre, at the rotated pixel plus half a point.
    @Test func portraitProjectionOnAKnownCase() throws {
        let state = CameraState(intrinsics: Self.camera)
        // 0.1 m right of the axis, 1 m ahead: u = 319.5 + 50, v = 239.5.
        let p = try #require(state.projectPoint(SIMD3(0.1, 0, -1), orientation: .portrait, viewportSize: SIMD2(480, 640)))
        #expect(isNear(p, SIMD2(240, 370), 1e-9), "\(p)")
        // In the portrait view matrix's space that point is straight below the axis: x = 0, y < 0.
        let inDisplay = state.viewMatrix(for: .portrait).apply(to: SIMD3(0.1, 0, -1))
        #expect(isNear(inDisplay, SIMD3(0, -0.1, -1), 1e-12))
        // Landscape-right with the image's own size: a pixel's centre is half a point into it.
        let q = try #require(state.projectPoint(SIMD3(0.1, 0, -1), orientation: .landscapeRight, viewportSize: SIMD2(640, 480)))
        #expect(isNear(q, SIMD2(370, 240), 1e-9))
    }

    /// Aspect fill: a 640x480 image in a 1000x500 viewport is scaled by 1.5625 and cropped top and
    /// bottom by 125 points; the principal point lands at the viewport's centre.
    @Test func aspectFillOnAKnownCase() {
        let (scale, offset) = Self.camera.viewportMapping(for: .landscapeRight, viewportSize: SIMD2(1000, 500))
        #expect(abs(scale - 1.5625) < 1e-12 && isNear(offset, SIMD2(0, 125), 1e-9))
        #expect(isNear(Self.camera.viewportPoint(ofPixel: SIMD2(319.5, 239.5), orientation: .landscapeRight, viewportSize: SIMD2(1000, 500)),
                       SIMD2(500, 250), 1e-9))
    }

    /// `projection * view * p` lands, in every orientation and for viewports of other shapes, at
    /// the viewport point `projectPoint` gives: NDC (2X/W - 1, 1 - 2Y/H). This is how an engine
    /// uses the two matrices.
    @Test(arguments: InterfaceOrientation.allCases)
    func matricesAgreeWithProjectPoint(_ orientation: InterfaceOrientation) throws {
        let pose = Transform(rotation: Matrix3.exp(normalize(SIMD3(0.3, 1, 0.2)) * 0.4), translation: SIMD3(0.2, 1.4, 0.5))
        let state = CameraState(transform: pose, intrinsics: try CameraIntrinsics(width: 640, height: 480, fx: 520, fy: 515, cx: 300.2, cy: 250.7))
        for viewport in [SIMD2<Double>(390, 844), SIMD2(844, 390), SIMD2(640, 480)] {
            let projection: Matrix4 = state.projectionMatrix(for: orientation, viewportSize: viewport, zNear: 0.01, zFar: 100)
            let view = state.viewMatrix(for: orientation)
            for pixel in [SIMD2<Double>(10, 20), SIMD2(600, 400), SIMD2(320, 240)] {
                let world = pose.apply(to: state.intrinsics.unproject(pixel, depth: 2.5))
                let expected: SIMD2<Double> = try #require(state.projectPoint(world, orientation: orientation, viewportSize: viewport))
                let clip = projection * view.matrix * SIMD4(world, 1)
                let ndc = SIMD2(clip[0] / clip[3], clip[1] / clip[3])
                let point = SIMD2((ndc.x + 1) / 2 * viewport.x, (1 - ndc.y) / 2 * viewport.y)
                #expect(isNear(point, expected, 1e-6), "\(orientation) \(viewport): \(point) vs \(expected)")
                #expect(abs(clip[3] - 2.5) < 1e-9, "w is the depth")
            }
        }
    }

    // MARK: Overlay geometry

    @Test func sizesLayoutsAndRotation() {
        let card = OverlayContent.card(color: .white, label: nil, aspectRatio: 2)
        // Default: the target's extent on images and markers; 10 cm wide (height from the aspect) elsewhere.
        #expect(Overlay(content: card).size(onAnchorOf: .image, extent: SIMD2(0.4, 0.3)) == SIMD2(0.4, 0.3))
        #expect(isNear(Overlay(content: card).size(onAnchorOf: .plane, extent: SIMD2(2, 1)), SIMD2(0.1, 0.05)))
        #expect(isNear(Overlay(content: card, width: 0.3, scale: 2).size(onAnchorOf: .marker, extent: SIMD2(0.1, 0.1)), SIMD2(0.6, 0.3)))
        #expect(isNear(Overlay(content: card, height: 0.2).size(onAnchorOf: nil, extent: nil), SIMD2(0.4, 0.2)))
        // Right of a 0.4 m target with a 2 cm margin: the centre is 0.2 + 0.02 + 0.05 m right.
        let right = Overlay(content: card, layout: .right, margin: 0.02).anchorFromContent(size: SIMD2(0.1, 0.05), extent: SIMD2(0.4, 0.3))
        #expect(isNear(right.translation, SIMD3(0.27, 0, 0)))
        let above = Overlay(content: card, layout: .above, offset: SIMD3(0, 0.01, 0)).anchorFromContent(size: SIMD2(0.1, 0.05), extent: SIMD2(0.4, 0.3))
        #expect(isNear(above.translation, SIMD3(0, 0.01, -0.195)))
        // A quarter turn counter-clockwise seen from the front: the content's right edge points up (-z).
        let turned = Overlay(content: card, rotation: .pi / 2).anchorFromContent(size: SIMD2(0.1, 0.05), extent: .zero)
        #expect(isNear(turned.rotation.columns.0, SIMD3(0, 0, -1), 1e-12))
    }

    /// A tap on a level surface stands the content up for the camera (bottom edge toward it); on a
    /// wall, its top edge points up.
    @Test func tapPlacementStandsUpright() {
        let floor = OverlayScene.upright(at: SIMD3(0, 0, -2), normal: SIMD3(0, 1, 0), camera: SIMD3(0, 1.5, 0))
        #expect(isNear(floor.rotation.columns.1, SIMD3(0, 1, 0), 1e-12) && isNear(floor.rotation.columns.2, SIMD3(0, 0, 1), 1e-12))
        let wall = OverlayScene.upright(at: SIMD3(0, 1, -3), normal: SIMD3(0, 0, -1), camera: SIMD3(0, 1.5, 0))
        #expect(isNear(wall.rotation.columns.1, SIMD3(0, 0, 1), 1e-12), "the normal is turned toward the camera")
        #expect(isNear(wall.rotation.columns.2, SIMD3(0, -1, 0), 1e-12) && isNear(wall.rotation.columns.0, SIMD3(1, 0, 0), 1e-12))
    }

    // MARK: Compositing

    /// A 0.5 m card 1 m ahead, facing the camera, is 125 px wide: opaque it replaces the picture,
    /// half transparent it blends, its anti-aliased edges cover exactly its width, and a fully
    /// transparent picture changes nothing.
    @Test func compositingKnownCases() throws {
        let gray = try Image.filled(width: 640, height: 480, channels: 3, value: 100)
        let facing = Transform(rotation: Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0))), translation: SIMD3(0, 0, -1))
        let state = CameraState(intrinsics: try CameraIntrinsics(width: 640, height: 480, fx: 250, fy: 250, cx: 319.7, cy: 239.5))
        func draw(_ content: OverlayContent, opacity: Double = 1) throws -> Image {
            var scene = OverlayScene([PlacedOverlay(Overlay(content: content, width: 0.5, height: 0.5, opacity: opacity), on: .world(facing))])
            return try OverlayCompositor().composite(scene.instances(for: FrameUpdate(frame: 0, time: 0, camera: state, anchors: [])),
                                                     of: scene, over: gray, camera: state)
        }
        let red = try draw(.card(color: Color(red: 255, green: 0, blue: 0), label: nil, aspectRatio: 1))
        #expect(red.pixel(x: 320, y: 240, channel: 2) == 255 && red.pixel(x: 320, y: 240, channel: 0) == 0)
        #expect(red.pixel(x: 100, y: 240, channel: 2) == 100 && red.pixel(x: 320, y: 60, channel: 0) == 100)
        // Coverage across row 240 (red channel: 100 + 155 * coverage) sums to the width, 125 px.
        let covered = (0..<640).map { Double(red.pixel(x: $0, y: 240, channel: 2)) - 100 }.reduce(0, +) / 155
        #expect(abs(covered - 125) < 0.05, "covered \(covered) px")
        let half = try draw(.card(color: Color(red: 255, green: 0, blue: 0), label: nil, aspectRatio: 1), opacity: 0.5)
        #expect(abs(Int(half.pixel(x: 320, y: 240, channel: 2)) - 178) <= 1 && abs(Int(half.pixel(x: 320, y: 240, channel: 0)) - 50) <= 1)
        let clear = try draw(.picture(try Image.fromPixels([UInt8](repeating: 200, count: 4 * 4 * 4).enumerated().map { $0.offset % 4 == 3 ? 0 : $0.element },
                                                          width: 4, height: 4, channels: 4)))
        #expect(clear.withPixels { a, _ in gray.withPixels { b, _ in (0..<(640 * 480 * 3)).allSatisfy { a[$0] == b[$0] } } })
    }

    /// On the committed rendered sequences, an opaque card on every target, measured from the
    /// composited pixels, lands on the true corners within the anchor's own corner error: the
    /// overlay adds nothing measurable to the tracker's error.
    @Test(arguments: ["images-approach", "markers-aruco-table"])
    func overlayCornersLandOnTheTrueCorners(_ name: String) throws {
        let samples = try OverlayAccuracy.measure(sequence: try RecordedSequence(folder: Paths.dataset(name)))
        let overlay = try #require(Summary(samples.map(\.overlayError))), anchor = try #require(Summary(samples.map(\.anchorError)))
        let drawing = try #require(Summary(samples.map(\.drawingError)))
        let within = Double(samples.filter { $0.overlayError <= $0.anchorError + 0.1 }.count) / Double(samples.count)
        print("overlays \(name): \(samples.count) samples, overlay corner error median \(overlay.median) p90 \(overlay.p90) px, "
              + "anchor \(anchor.median) p90 \(anchor.p90) px, drawing median \(drawing.median) max \(drawing.max) px, within \(within)")
        #expect(samples.count >= 100)
        #expect(overlay.median <= anchor.median + 0.02 && overlay.p90 <= anchor.p90 + 0.05)
        #expect(within >= 0.98)
        #expect(drawing.median < 0.02, "compositing moves the corners by \(drawing.median) px")
    }

    // MARK: Command line

    @Test func renderAStillWithAnUnknownName() async throws {
        let out = TemporaryFolder()
        let r = try await CLITests.run(["render", Paths.dataset("images-approach"), "--overlay", "graffiti=#ff00ff:label=Hi",
                                        "--overlay", "nosuch=#00ff00", "--debug", "--still", "20", "-o", out.file("still.png"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("warning") && r.stderr.contains("nosuch"), "\(r.stderr)")
        let still = try Image(contentsOf: out.file("still.png"))
        #expect(still.width == 640 && still.height == 480)
        #expect(out.contents() == ["still.png"])
    }

    @Test func renderAVideoWithTheDebugView() async throws {
        let out = TemporaryFolder()
        let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", "image/graffiti=#1e90ffaa:layout=below:width=0.2",
                                        "--debug", "-o", out.file("out.mp4"), "--quiet"], timeout: 600)
        #expect(r.status == 0, "\(r.stderr)")
        let source = try VideoFileSource(path: out.file("out.mp4"), framesPerSecond: nil)
        var count = 0
        while try source.nextFrame() != nil { count += 1 }
        let frames = try RecordedSequence(folder: Paths.dataset("images-still")).openFrames()
        var expected = 0
        while try frames.nextFrame() != nil { expected += 1 }
        #expect(count == expected && out.contents() == ["out.mp4"])
    }

    @Test func renderToAFramePattern() async throws {
        let out = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: out.file("frames"), withIntermediateDirectories: false)
        let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", "graffiti=#ff00ff80", "-o", out.file("frames/%04d.png"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = out.contents("frames")
        #expect(names.count == 90 && names.first == "0000.png" && names.last == "0089.png", "\(names.prefix(3)) ... \(names.count)")
    }

    @Test(arguments: ["12@x,3=#ff00ff", "1.5@3,4=#ff00ff", "12@3=#ff00ff"])
    func malformedTapArgument(_ argument: String) async throws {
        let out = TemporaryFolder()
        let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--tap", argument, "-o", out.file("o.mp4"), "--quiet"])
        CLITests.expectCleanFailure(r, mentions: [argument], outputFolder: out)
    }

    @Test func unreadableOverlayImage() async throws {
        let out = TemporaryFolder()
        let bad = try out.write("bad.png", "not a picture")
        let result = TemporaryFolder()
        for content in [out.file("missing.png"), bad] {
            let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", "graffiti=\(content)",
                                            "-o", result.file("out.mp4"), "--quiet"])
            CLITests.expectCleanFailure(r, mentions: [(content as NSString).lastPathComponent], outputFolder: result)
        }
    }

    @Test func unwritableOutput() async throws {
        let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", "graffiti=#ff00ff",
                                        "-o", "/nonexistent-folder/out.mp4", "--quiet"])
        CLITests.expectCleanFailure(r, mentions: ["/nonexistent-folder"])
        let out = TemporaryFolder()
        let pattern = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", "graffiti=#ff00ff",
                                              "-o", out.file("frames.mp4x"), "--quiet"])
        #expect(pattern.status != 0 && out.contents().isEmpty)
    }

    @Test(arguments: ["graffiti=#ff00ff:width=-1", "graffiti=#ff00ff:layout=sideways", "graffiti=#zz0000", "graffiti", "graffiti=#ff00ff:colour=red"])
    func malformedOverlayArgument(_ argument: String) async throws {
        let out = TemporaryFolder()
        let r = try await CLITests.run(["render", Paths.dataset("images-still"), "--overlay", argument, "-o", out.file("o.mp4"), "--quiet"])
        CLITests.expectCleanFailure(r, mentions: [argument], outputFolder: out)
    }
}
