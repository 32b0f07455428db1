import Foundation
import AnchorKit

/// Per-frame camera poses recorded by another system (a phone's AR session, motion capture),
/// `poses.jsonl`: one line per frame,
///
///     {"frame": 0, "transform": [16 numbers: world_from_camera, column-major]}
///
/// in the conventions of ../shared/FORMATS.md (ARKit camera: +y up, looking along -z; metres).
/// Lines of an anchor stream (`{"frame": …, "camera": {"transform": […]}, …}`) are accepted
/// too, so a ground-truth file can serve as the poses.
public enum PoseFile {
    struct Line: Decodable {
        let frame: Int
        let transform: Transform

        enum Keys: String, CodingKey { case frame, transform, camera }
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            frame = try c.decode(Int.self, forKey: .frame)
            if c.contains(.transform) {
                transform = try c.decodeTransform(forKey: .transform)
            } else {
                let camera = try c.nestedContainer(keyedBy: Keys.self, forKey: .camera)
                transform = try camera.decodeTransform(forKey: .transform)
            }
        }
    }

    /// Reads the file into a map from frame index to `world_from_camera`. Throws a one-line
    /// error for malformed lines, transforms that are not rigid or not finite, negative or
    /// repeated frames.
    public static func read(contentsOf path: String) throws -> [Int: Transform] {
        var result: [Int: Transform] = [:]
        _ = try JSONLines.read(Line.self, contentsOf: path) { line in
            guard line.frame >= 0 else { throw JSONLines.LineProblem("frame \(line.frame) is negative") }
            guard result[line.frame] == nil else { throw JSONLines.LineProblem("frame \(line.frame) repeated") }
            result[line.frame] = line.transform
        }
        guard !result.isEmpty else { throw InputError(path, "no poses") }
        return result
    }
}
