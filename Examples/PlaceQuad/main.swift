// Places a 20 cm square 5 cm above a poster found in camera frames and prints where its corners
// land in each frame. The frames are PNG files here; an engine passes its camera's pixels
// (Image.fromPixels) instead. Run: swift run --package-path Examples PlaceQuad SEQUENCE_FOLDER
import AnchorKit
import Foundation

func placeQuad(folder: String) throws {
    let camera = try CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 525, cx: 319.5, cy: 239.5)
    let poster = try ReferenceImage(name: "graffiti", contentsOf: folder + "/targets/graffiti.png", physicalWidth: 0.6)
    let session = try Session(configuration: Configuration(camera: camera, referenceImages: try ReferenceImageSet([poster])))
    // The quad in the anchor's frame: an image anchor's y axis is the poster's normal (ARKit's).
    let quad: [SIMD3<Double>] = [[-0.1, 0.05, -0.1], [0.1, 0.05, -0.1], [0.1, 0.05, 0.1], [-0.1, 0.05, 0.1]]
    var index = 0
    while let image = try? Image(contentsOf: folder + String(format: "/frames/%06d.png", index)) {
        let update = try session.process(Frame(index: index, time: Double(index) / 30, image: image))
        for anchor in update.anchors where anchor.isTracked {
            // Anchor -> world (anchor.transform), world -> pixels (the frame's camera).
            let corners = quad.compactMap { update.camera.project(anchor.transform.apply(to: $0)) }
            print(index, anchor.name ?? anchor.identifier, corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " "))
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
