import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitMedia

/// `anchorkit raycast`: where a tap at a pixel of a frame lands, after world tracking and plane
/// detection have run up to that frame; checked against the ground truth when there is one.
struct RaycastCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raycast",
        abstract: "Cast rays from pixels of frames of a sequence onto its detected planes (or feature points) and print the hits.",
        discussion: """
            Runs world tracking and plane detection up to each --frame, then casts each --pixel (or a \
            --grid of pixels). One line per ray: the nearest hit's world position, distance, plane and, \
            when the sequence has ground truth, the true surface under the pixel and the hit's error \
            (measured in the camera's frame, so it does not depend on the world's alignment).
            Example: anchorkit raycast Datasets/room-walk --frame 119 --pixel 320,400 --json
            """)

    @Argument(help: "The sequence folder (sequence.json with intrinsics; gravity and targets are used when given).")
    var sequence: String

    @Option(name: .customLong("frame"), help: "Frame index to cast from (repeatable).")
    var frames: [Int]

    @Option(name: .customLong("pixel"), help: "Pixel x,y (repeatable).")
    var pixels: [String] = []

    @Option(help: "Cast a grid of COLUMNSxROWS pixels spread over the image (e.g. 8x6), besides --pixel.")
    var grid: String?

    @Option(help: "existing (plane geometry), infinite (planes without bounds) or estimated (feature points).")
    var target = "existing"

    @Option(help: "Which planes a ray may hit: any, horizontal or vertical.")
    var alignment = "any"

    @Option(help: "Planes to detect: a comma-separated list of horizontal, vertical, arbitrary.")
    var planes = "horizontal,vertical"

    @Flag(help: "Print JSON Lines (one object per ray) instead of text.")
    var json = false

    func run() throws {
        try reportingErrors {
            let targets: [String: RaycastTarget] = ["existing": .existingPlaneGeometry, "infinite": .existingPlaneInfinite,
                                                    "estimated": .estimatedPlane]
            guard let target = targets[target] else { throw ValidationError("--target must be existing, infinite or estimated") }
            guard let alignment = PlaneAlignment(rawValue: alignment) else {
                throw ValidationError("--alignment must be any, horizontal or vertical")
            }
            guard let detection = PlaneDetection(list: planes) else {
                throw ValidationError("--planes takes a list of horizontal, vertical, arbitrary (or any)")
            }
            guard !frames.isEmpty, frames.allSatisfy({ $0 >= 0 }) else { throw ValidationError("give --frame N (N ≥ 0)") }
            let recorded = try RecordedSequence(folder: sequence)
            let camera = recorded.description.camera
            var rays = try pixels.map { text -> SIMD2<Double> in
                let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2, parts.allSatisfy(\.isFinite) else { throw ValidationError("--pixel takes x,y, not \"\(text)\"") }
                return SIMD2(parts[0], parts[1])
            }
            if let grid {
                let n = grid.lowercased().split(separator: "x").compactMap { Int($0) }
                guard n.count == 2, n[0] >= 1, n[1] >= 1, n[0] * n[1] <= 10_000 else { throw ValidationError("--grid takes COLUMNSxROWS, e.g. 8x6") }
                for r in 0..<n[1] { for c in 0..<n[0] {
                    rays.append(SIMD2((Double(c) + 0.5) * Double(camera.width) / Double(n[0]) - 0.5,
                                      (Double(r) + 0.5) * Double(camera.height) / Double(n[1]) - 0.5))
                } }
            }
            guard !rays.isEmpty else { throw ValidationError("give --pixel x,y or --grid CxR") }
            for p in rays where !(0...Double(camera.width - 1)).contains(p.x) || !(0...Double(camera.height - 1)).contains(p.y) {
                throw ValidationError("pixel \(p.x),\(p.y) is outside the \(camera.width)x\(camera.height) image")
            }

            var configuration = try Configuration(sequence: recorded)
            configuration.worldTracking = .visualOdometry(VisualOdometry.Parameters())
            configuration.planeDetection = detection
            let session = try Session(configuration: configuration)
            let truth = try recorded.groundTruth().map { Dictionary($0.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a }) }
            let source = try recorded.openFrames()
            let wanted = Set(frames), last = frames.max()!
            var errors: [String: [Double]] = [:]
            var reached = -1
            while reached < last, let frame = try source.nextFrame() {
                reached = frame.index
                let update = try session.process(frame)
                guard wanted.contains(frame.index) else { continue }
                for pixel in rays {
                    let hits = session.raycast(update.camera.raycastQuery(from: pixel, target: target, alignment: alignment))
                    let truePlane = truth?[frame.index]?.plane(under: pixel)
                    var error: Double?
                    if let hit = hits.first, let truePlane, update.camera.scale == .metric {
                        let reported = update.camera.cameraFrom(hit.worldTransform).translation
                        error = length(reported - truePlane.inCamera)
                        errors[truePlane.identifier, default: []].append(error!)
                    }
                    print(Self.line(frame: update, pixel: pixel, hit: hits.first, truth: truePlane?.identifier, error: error, json: json))
                }
            }
            guard reached >= last else { throw InputError(sequence, "has no frame \(last) (last frame \(reached))") }
            if !json && !errors.isEmpty {
                for (surface, e) in errors.sorted(by: { $0.key < $1.key }) {
                    let s = Summary(e)!
                    print(String(format: "raycast: %@: %d hits, error median %.2f cm, p90 %.2f cm, max %.2f cm",
                                 surface, e.count, 100 * s.median, 100 * s.p90, 100 * e.max()!))
                }
            }
        }
    }

    static func line(frame: FrameUpdate, pixel: SIMD2<Double>, hit: RaycastResult?, truth: String?, error: Double?, json: Bool) -> String {
        if json {
            var object: [String: Any] = ["frame": frame.frame, "pixel": [pixel.x, pixel.y]]
            if let hit {
                object["hit"] = ["transform": hit.worldTransform.columnMajor, "distance": hit.distance,
                                 "target": hit.target.rawValue, "plane": hit.anchorIdentifier as Any]
            }
            if let truth { object["truth"] = truth }
            if let error { object["error"] = error }
            // Slashes unescaped, as in the anchor stream ("plane/1", not "plane\/1").
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        }
        var text = String(format: "frame %d pixel %.1f,%.1f: ", frame.frame, pixel.x, pixel.y)
        if let hit {
            let p = hit.worldTransform.translation
            text += String(format: "hit %@ at (%.3f, %.3f, %.3f), distance %.3f", hit.anchorIdentifier ?? hit.target.rawValue, p.x, p.y, p.z, hit.distance)
        } else {
            text += "no hit"
        }
        if let truth { text += ", truth \(truth)" }
        if let error { text += String(format: ", error %.2f cm", 100 * error) }
        return text
    }
}
