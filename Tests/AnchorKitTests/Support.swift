import Foundation
import Testing
@testable import AnchorKit
import AnchorKitMedia

/// Shared helpers of the test suite: paths, temporary folders, error texts, tolerances.
enum Paths {
    /// The package root: this file is `<root>/Tests/AnchorKitTests/Support.swift`.
    static let repoRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().standardizedFileURL.path
    }()

    /// `<root>/../shared` (the data contract and the shared data sets).
    static let shared: String = {
        URL(fileURLWithPath: repoRoot).deletingLastPathComponent().appendingPathComponent("shared")
            .standardizedFileURL.path
    }()

    /// The OpenCV ArUco tutorial photos.
    static let arucoPhotos = shared + "/datasets/opencv-aruco-photos"

    /// Test fixtures (excluded from the target; found through #filePath).
    static let fixtures: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }()

    /// The committed sequences under `<root>/Datasets`.
    static let datasetNames = ["markers-aruco-table", "markers-apriltag-far", "markers-blur"]  // marker sequences
    /// Walks past far, small, oblique, blurred markers, several printing one id (MarkerScenes).
    static let walkDatasetNames = ["markers-far-walk", "markers-blur-walk"]

    static func dataset(_ name: String) -> String { repoRoot + "/Datasets/" + name }
}

/// A program run to its end with its standard output captured (standard error goes to the test log).
enum ProgramRun {
    /// The exit status and standard output of `executable` run with `arguments`.
    static func output(of executable: String, _ arguments: [String] = []) throws -> (status: Int32, text: String) {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

/// A fresh temporary folder, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init(_ label: String = "anchorkit-tests") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the folder.
    func file(_ relative: String) -> String { path + "/" + relative }

    /// Writes text to a file inside the folder (creating intermediate folders) and returns its path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let p = file(relative)
        try FileManager.default.createDirectory(
            atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        return p
    }

    /// The names of the entries of the folder (or of a sub-folder), hidden ones included.
    func contents(_ relative: String = "") -> [String] {
        let p = relative.isEmpty ? path : file(relative)
        return ((try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []).sorted()
    }
}

/// The text a user would see for an error: its `description` as `String(describing:)` gives it.
func errorText(_ error: Error) -> String { String(describing: error) }

/// Runs `body`, which must throw; returns the error's text (or nil, recording an issue, if it
/// did not throw). Checks that the text is one line and contains each of `fragments`.
@discardableResult
func expectOneLineError(
    containing fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> String? {
    do {
        try body()
        Issue.record("expected an error containing \(fragments)", sourceLocation: sourceLocation)
        return nil
    } catch {
        let text = errorText(error)
        #expect(!text.contains("\n"), "error is not one line: \(text)", sourceLocation: sourceLocation)
        #expect(!text.isEmpty, sourceLocation: sourceLocation)
        for f in fragments {
            #expect(text.contains(f), "error \"\(text)\" does not mention \"\(f)\"", sourceLocation: sourceLocation)
        }
        return text
    }
}

/// Rotation angle between two transforms' rotations, degrees.
func rotationErrorDegrees(_ a: Transform, _ b: Transform) -> Double {
    (a.rotation.transposed * b.rotation).rotationAngle * 180 / .pi
}

func isNear(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double = 1e-9) -> Bool {
    length(a - b) <= tolerance
}

func isNear(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ tolerance: Double = 1e-9) -> Bool {
    length(a - b) <= tolerance
}

func isNear(_ a: Matrix3, _ b: Matrix3, _ tolerance: Double = 1e-9) -> Bool {
    zip(a.rowMajor, b.rowMajor).allSatisfy { abs($0 - $1) <= tolerance }
}

/// MP4 surgery for truncation tests: rewrites a file whose `moov` atom follows `mdat` so that
/// `moov` comes first ("fast start"), shifting the chunk offsets. Cutting such a file keeps its
/// index, so a decoder opens it and runs out of frames part-way (a truncated download), instead
/// of failing to open it at all.
enum MP4 {
    static func faststart(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        var atoms: [(type: String, range: Range<Int>)] = []
        var i = 0
        while i + 8 <= bytes.count {
            var size = Int(be32(bytes, i))
            if size == 1 { size = Int(be64(bytes, i + 8)) } else if size == 0 { size = bytes.count - i }
            guard size >= 8, i + size <= bytes.count else { return nil }
            atoms.append((type(bytes, i), i..<(i + size)))
            i += size
        }
        guard let moov = atoms.firstIndex(where: { $0.type == "moov" }),
              let mdat = atoms.firstIndex(where: { $0.type == "mdat" }), moov > mdat else { return nil }
        var moovBytes = Array(bytes[atoms[moov].range])
        guard patchOffsets(&moovBytes, 0..<moovBytes.count, shift: moovBytes.count) else { return nil }
        var out: [UInt8] = []
        for (k, atom) in atoms.enumerated() where k != moov {
            if k == mdat { out += moovBytes }
            out += bytes[atom.range]
        }
        return Data(out)
    }

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]

    private static func patchOffsets(_ b: inout [UInt8], _ range: Range<Int>, shift: Int) -> Bool {
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let size = Int(be32(b, i))
            guard size >= 8, i + size <= range.upperBound else { return false }
            let t = type(b, i)
            if containers.contains(t) {
                guard patchOffsets(&b, (i + 8)..<(i + size), shift: shift) else { return false }
            } else if t == "stco" {
                let n = Int(be32(b, i + 12))
                for k in 0..<n { let p = i + 16 + 4 * k; put32(&b, p, be32(b, p) + UInt32(shift)) }
            } else if t == "co64" {
                let n = Int(be32(b, i + 12))
                for k in 0..<n {
                    let p = i + 16 + 8 * k
                    let v = be64(b, p) + UInt64(shift)
                    put32(&b, p, UInt32(v >> 32)); put32(&b, p + 4, UInt32(v & 0xFFFF_FFFF))
                }
            }
            i += size
        }
        return true
    }

    private static func type(_ b: [UInt8], _ i: Int) -> String { String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self) }
    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    private static func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }
    private static func put32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) {
        b[i] = UInt8(v >> 24); b[i + 1] = UInt8((v >> 16) & 0xFF); b[i + 2] = UInt8((v >> 8) & 0xFF); b[i + 3] = UInt8(v & 0xFF)
    }
}

/// Transforms equal element by element within `tolerance` (the rotation angle from acos is too
/// coarse, ~1e-8 rad, for exactness checks).
func isNear(_ a: Transform, _ b: Transform, _ tolerance: Double = 1e-12) -> Bool {
    zip(a.columnMajor, b.columnMajor).allSatisfy { abs($0 - $1) <= tolerance }
}

/// A 640 x 480 pinhole camera for camera states and streams whose intrinsics a test does not use.
let testCamera = try! CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 500, cx: 319.5, cy: 239.5)

/// A recorded sequence run through a session with world tracking (visual odometry), as a user
/// of `track --world` would, with its ground truth.
enum WorldRun {
    static func track(_ folder: String) throws -> (updates: [FrameUpdate], truth: [FrameUpdate]) {
        let run = try session(folder)
        return (run.updates, run.truth)
    }

    /// The same run, with the session and each frame's geo alignment (nil until localised);
    /// `configure` changes the sequence's configuration first.
    static func session(_ folder: String, configure: (inout Configuration) -> Void = { _ in }) throws
        -> (session: Session, updates: [FrameUpdate], geoAlignments: [GeoAlignment?], truth: [FrameUpdate]) {
        let sequence = try RecordedSequence(folder: folder)
        var configuration = try Configuration(sequence: sequence)
        configuration.worldTracking = .visualOdometry(VisualOdometry.Parameters())
        configure(&configuration)
        let session = try Session(configuration: configuration)
        let frames = try sequence.openFrames()
        var updates: [FrameUpdate] = [], alignments: [GeoAlignment?] = []
        while let frame = try frames.nextFrame() {
            updates.append(try session.process(frame))
            alignments.append(session.geoAlignment)
        }
        return (session, updates, alignments, try #require(try sequence.groundTruth()))
    }
}
