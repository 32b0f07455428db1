// Places a 20 cm square 5 cm above a poster found in camera frames and prints where its corners
// land in each frame. The frames are PNG files here; an engine passes its camera's pixels
// (Image.fromPixels) instead. Run: swift run --package-path Examples PlaceQuad SEQUENCE_FOLDER
import AnchorKit
import Foundation

func placeQuad(folder: String) throws {
    let camera = try CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 525, cx: 319.5, cy: 239.5)
    let poster = try ReferenceImage(name: "graffiti", contentsOf: folder + "/targets/graffiti.png", physicalWidth: 0.6)
    let session = try Session(configuration: Configuration(camera: camera, referenceImages: try ReferenceImageSet([poster])))
    // A unit square in its own frame, scaled to 20 cm and lifted 5 cm along the anchor's +y (an
    // image anchor's y axis is the poster's normal, as in ARKit).
    let quad: [SIMD4<Double>] = [[-0.5, 0, -0.5, 1], [0.5, 0, -0.5, 1], [0.5, 0, 0.5, 1], [-0.5, 0, 0.5, 1]]
    let lift = Transform(translation: SIMD3(0, 0.05, 0))
    var index = 0
    while let image = try? Image(contentsOf: folder + String(format: "/frames/%06d.png", index)) {
        let update = try session.process(Frame(index: index, time: Double(index) / 30, image: image))
        let projection = update.camera.projectionMatrix(for: .landscapeRight, viewportSize: SIMD2(640, 480), zNear: 0.01, zFar: 100)
        let view = update.camera.viewMatrix(for: .landscapeRight).matrix
        for anchor in update.anchors where anchor.kind == .image && anchor.isTracked {
            // What an engine uploads: model, view and projection, column-major (floatColumns).
            let model = (anchor.transform * lift).modelMatrix(scale: SIMD3(0.2, 0.2, 0.2))
            let clipFromQuad: Matrix4 = projection * view * model
            let corners: [SIMD2<Double>] = quad.map { corner in
                let clip = clipFromQuad * corner
                return SIMD2((clip.x / clip.w + 1) / 2 * 640, (1 - clip.y / clip.w) / 2 * 480)  // NDC -> viewport points
            }
            print(index, anchor.identifier, corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " "))
        }
        index += 1
    }
    print("\(index) frames")
}

do {
    try placeQuad(folder: CommandLine.arguments.dropFirst().first ?? "Generated/images-approach")
} catch {
    FileHandle.standardError.write(Data("PlaceQuad: \(error)\n".utf8))
    exit(1)
}
