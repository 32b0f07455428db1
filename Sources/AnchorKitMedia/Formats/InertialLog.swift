import Foundation
import AnchorKit

/// An inertial log, `imu.jsonl` (../shared/FORMATS.md): a header line without `time` naming the
/// axes (`"frame": "camera"`: ARKit's camera axes, the only frame read), then one line per sample
/// with `time` (seconds of the video), `accelerometer` (m/s², specific force) and `gyroscope`
/// (rad/s).
public enum InertialLog {
    /// The header line's fields.
    public struct Header: Codable, Sendable, Equatable {
        /// The axes the samples are in: `"camera"`.
        public var frame: String
        /// Samples per second (informative).
        public var rate: Double?
        public init(frame: String = "camera", rate: Double? = nil) { self.frame = frame; self.rate = rate }
    }

    struct Line: Decodable {
        let time: Double?
        let accelerometer: [Double]?
        let gyroscope: [Double]?
        let frame: String?
    }

    struct SampleLine: Encodable {
        let time: Double
        let accelerometer: [Double]
        let gyroscope: [Double]
    }

    /// Reads the log; throws a one-line error naming the file and line for a missing or unknown
    /// header, malformed samples, or times that go back.
    public static func read(contentsOf path: String) throws -> [InertialSample] {
        var samples: [InertialSample] = []
        var sawHeader = false
        _ = try JSONLines.read(Line.self, contentsOf: path) { line in
            guard let time = line.time else {
                guard !sawHeader, samples.isEmpty else { throw JSONLines.LineProblem("a second header (a line without \"time\")") }
                guard line.frame == "camera" else {
                    throw JSONLines.LineProblem("the header's \"frame\" is \(line.frame.map { "\"\($0)\"" } ?? "missing"): only \"camera\" (ARKit's camera axes) is read")
                }
                sawHeader = true
                return
            }
            guard sawHeader else { throw JSONLines.LineProblem("no header line (with \"frame\": \"camera\") before the samples") }
            guard let a = line.accelerometer, let g = line.gyroscope, a.count == 3, g.count == 3,
                  (a + g + [time]).allSatisfy(\.isFinite) else {
                throw JSONLines.LineProblem("a sample needs a finite time and 3 finite numbers in each of accelerometer and gyroscope")
            }
            if let last = samples.last, time <= last.time { throw JSONLines.LineProblem("time \(time) does not come after \(last.time)") }
            samples.append(InertialSample(time: time, accelerometer: SIMD3(a[0], a[1], a[2]), gyroscope: SIMD3(g[0], g[1], g[2])))
        }
        guard !samples.isEmpty else { throw InputError(path, "no inertial samples") }
        return samples
    }

    /// The log's lines: the header, then each sample (sorted keys, so the bytes are the same on every run).
    public static func lines(header: Header, samples: [InertialSample]) throws -> [Data] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try [encoder.encode(header)] + samples.map { s in
            try encoder.encode(SampleLine(time: s.time, accelerometer: [s.accelerometer.x, s.accelerometer.y, s.accelerometer.z],
                                          gyroscope: [s.gyroscope.x, s.gyroscope.y, s.gyroscope.z]))
        }
    }
}
