import AnchorKit
import AnchorKitMedia
import AnchorKitRendering
/// How well overlays land on their targets: an opaque card is composited over each target anchor
/// (default size: the target's extent, so its corners should be the target's corners), its corners
/// are measured from the composited pixels (``OverlayEdgeMeasurement``) and compared with the
/// ground truth, beside the anchor's own corner error.
public enum OverlayAccuracy {
    /// One target in one frame.
    public struct Sample: Sendable {
        public var frame: Int
        public var identifier: String
        /// The card's measured corners against the true corners (RMS over the 4 corners, pixels).
        public var overlayError: Double
        /// The anchor's reported corners against the true corners (the stream's corner error).
        public var anchorError: Double
        /// The card's measured corners against where the geometry put them (the card's corners
        /// projected with the frame's camera): what compositing itself adds.
        public var drawingError: Double
    }

    /// The card's colour: magenta, rare in the pictures it is measured over.
    public static let cardColor = Color(red: 255, green: 0, blue: 255)

    /// Measures every target of `truth` that is tracked in `update` and lies wholly inside the
    /// image (with room for the edge scans): each alone, over `frame`'s picture.
    public static func measure(frame: Frame, update: FrameUpdate, truth: FrameUpdate, compositor: OverlayCompositor) throws -> [Sample] {
        let camera = update.camera.intrinsics
        let scorer = Scorer(camera: camera)
        let margin = Double(OverlayEdgeMeasurement.searchRadius + 2)
        var samples: [Sample] = []
        for gt in truth.anchors where gt.kind != .plane && gt.kind != .geo && gt.isTracked {
            guard let reported = update.anchor(gt.identifier), reported.isTracked, let reportedCorners = reported.corners,
                  let trueCorners = scorer.corners(of: gt, in: truth),
                  trueCorners.allSatisfy({ $0.x >= margin && $0.y >= margin && $0.x <= Double(camera.width) - 1 - margin
                                           && $0.y <= Double(camera.height) - 1 - margin }) else { continue }
            let card = Overlay(content: .card(color: cardColor, label: nil, aspectRatio: reported.extent.x / reported.extent.y))
            var scene = OverlayScene([PlacedOverlay(card, on: .anchor(reported.identifier))])
            let instances = scene.instances(for: update)
            guard let instance = instances.first else { continue }
            let drawn = try compositor.composite(instances, of: scene, over: frame.image, camera: update.camera)
            guard let measured = OverlayEdgeMeasurement.corners(of: cardColor, in: drawn, original: frame.image, expected: trueCorners)
            else { continue }
            let projected = PictureQuad(size: instance.size, pixels: SIMD2(1, 1)).corners.compactMap {
                update.camera.project(instance.worldFromContent.apply(to: $0))
            }
            samples.append(Sample(frame: update.frame, identifier: gt.identifier,
                                  overlayError: Scorer.cornerError(measured, trueCorners),
                                  anchorError: Scorer.cornerError(reportedCorners, trueCorners),
                                  drawingError: Scorer.cornerError(measured, projected)))
        }
        return samples
    }

    /// Tracks a recorded sequence with its own targets (``Configuration/init(sequence:)``) and
    /// measures every frame that has ground truth.
    public static func measure(sequence: RecordedSequence) throws -> [Sample] {
        guard let truth = try sequence.groundTruth() else { throw InputError(sequence.folder, "no ground truth") }
        let truthByFrame = Dictionary(truth.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let frames = try sequence.openFrames()
        let compositor = OverlayCompositor()
        var samples: [Sample] = []
        while let frame = try frames.nextFrame() {
            let update = try session.process(frame)
            guard let gt = truthByFrame[frame.index] else { continue }
            samples += try measure(frame: frame, update: update, truth: gt, compositor: compositor)
        }
        return samples
    }
}
