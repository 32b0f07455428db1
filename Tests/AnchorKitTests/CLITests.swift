import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia

/// The `anchorkit` command line: tracking and scoring the committed sequences, and one-line
/// errors (with no output left behind) for bad input.
@Suite("Command line")
struct CLITests {
    // MARK: Running the binary

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let timedOut: Bool
        let signalled: Bool

        var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: true) }
    }

    /// The built `anchorkit` next to the test bundle (the test target depends on it).
    static let binary = builtExecutable(named: "anchorkit")

    /// An executable of this package built beside the test bundle (the test target depends on it).
    static func builtExecutable(named name: String) -> String? {
        let fm = FileManager.default
        var starts = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                      Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        for scratch in [".build-tests", ".build"] {
            starts.append(URL(fileURLWithPath: Paths.repoRoot + "/" + scratch + "/debug"))
        }
        for start in starts {
            var dir = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent(name).path
                var isDirectory: ObjCBool = false
                if fm.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                   fm.isExecutableFile(atPath: candidate) {
                    return candidate
                }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Runs `anchorkit` with `arguments` (through `wrapper`, a command line ending in the binary,
    /// when given); kills it after `timeout` seconds. The limits guard against hangs: a debug build
    /// on a slow shared machine, with the other suites running beside it, takes several times its
    /// idle time (raycast on room-walk: ~60 s idle on a 2-core KVM guest).
    static func run(_ arguments: [String], timeout: Double = 300, wrapper: [String] = []) async throws -> Result {
        let binary = try #require(Self.binary, "anchorkit binary not found near \(CommandLine.arguments[0])")
        let io = TemporaryFolder("anchorkit-cli-io")
        let outPath = io.file("stdout"), errPath = io.file("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try #require(FileHandle(forWritingAtPath: outPath))
        let err = try #require(FileHandle(forWritingAtPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? binary)
        process.arguments = wrapper.dropFirst() + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                process.terminate()
                try await Task.sleep(for: .seconds(1))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: timedOut,
                      signalled: process.terminationReason == .uncaughtSignal)
    }

    /// Checks a failed run: non-zero exit (not a crash or a hang), exactly one stderr line that
    /// starts with "anchorkit: error:" and mentions each of `mentions`, and an empty output folder.
    static func expectCleanFailure(_ r: Result, mentions: [String], outputFolder: TemporaryFolder? = nil,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!r.timedOut, "timed out", sourceLocation: sourceLocation)
        #expect(!r.signalled, "killed by signal \(r.status)", sourceLocation: sourceLocation)
        #expect(r.status != 0, "exit status 0; stdout: \(r.stdout)", sourceLocation: sourceLocation)
        let lines = r.stderrLines
        #expect(lines.count == 1, "stderr has \(lines.count) lines:\n\(r.stderr)", sourceLocation: sourceLocation)
        let line = lines.last.map(String.init) ?? ""
        #expect(line.hasPrefix("anchorkit: error:"), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
        for m in mentions {
            #expect(line.contains(m), "error line \"\(line)\" does not mention \"\(m)\"", sourceLocation: sourceLocation)
        }
        if let outputFolder {
            #expect(outputFolder.contents().isEmpty, "left in the output folder: \(outputFolder.contents())",
                    sourceLocation: sourceLocation)
        }
    }

    static let cameraJSON640 = #"{"width": 640, "height": 480, "fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5}"#

    // MARK: Success

    @Test func binaryIsBuilt() {
        #expect(Self.binary != nil, "anchorkit not found near \(CommandLine.arguments[0])")
    }

    @Test func profileNamesEveryStageThatRan() async throws {
        // The stage profile of a marker sequence (times are for benchmarks; here only what is listed).
        let out = TemporaryFolder()
        let r = try await Self.run(["track", Paths.dataset("markers-aruco-table"), "-o", out.file("a.jsonl"), "--quiet", "--profile"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("track: stage profile over 120 frames, ") }, "\(r.stdout)")
        for stage in ["decode (its own threads)", "waiting for frames", "markers", "  of which candidates",
                      "  of which corners and edges", "  of which template alignment", "writing"] {
            #expect(lines.contains { $0.hasPrefix(stage + " ") }, "no \(stage) line in \(r.stdout)")
        }
        for absent in ["image targets", "world tracking", "planes"] {
            #expect(!lines.contains { $0.hasPrefix(absent + " ") }, "\(absent) did not run: \(r.stdout)")
        }
    }

    @Test func trackAndScoreADataset() async throws {
        let out = TemporaryFolder()
        let output = out.file("anchors.jsonl")
        let sequence = Paths.dataset("markers-aruco-table")
        let r = try await Self.run(["track", sequence, "-o", output])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(!r.stderr.contains("error"), "stderr: \(r.stderr)")
        #expect(out.contents() == ["anchors.jsonl"])
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 120)
        let updates = try AnchorStreamReader.read(contentsOf: output, camera: testCamera)
        #expect(updates.map(\.frame) == Array(0..<120))
        let summary = r.stdout.split(separator: "\n").filter { $0.hasPrefix("track: ") }
        #expect(summary.count == 1, "stdout: \(r.stdout)")
        #expect(summary.first?.hasPrefix("track: 120 frames, ") == true, "stdout: \(r.stdout)")
        #expect(summary.first?.contains(output) == true)

        let s = try await Self.run(["score", sequence, output])
        #expect(s.status == 0, "stderr: \(s.stderr)")
        #expect(s.stdout.contains("sequence: markers-aruco-table"))
        for row in ["frames", "expected observations", "success @ 3 px", "success @ 5 px", "success @ 10 px",
                    "false positives", "rotation error median (deg)", "translation error median (%)"] {
            #expect(s.stdout.contains(row), "no \"\(row)\" row in:\n\(s.stdout)")
        }
        let frameRow = s.stdout.split(separator: "\n").first { $0.hasPrefix("frames") }
        #expect(frameRow?.hasSuffix(" 120") == true, "\(frameRow ?? "")")

        let j = try await Self.run(["score", "--json", sequence, output])
        #expect(j.status == 0)
        let score = try JSONDecoder().decode(Score.self, from: Data(j.stdout.utf8))
        #expect(score.frames == 120)
        #expect(score.successThresholds == [3, 5, 10])
    }

    /// `score --per-frame` lists every expected observation (text and JSON), and `plot` draws the
    /// corner errors over time and the camera path: SVG files with a polyline per target and path.
    @Test func perFrameScoresAndPlots() async throws {
        let sequence = Paths.dataset("markers-blur")
        let r = try await Self.run(["score", "--per-frame", sequence, sequence + "/groundtruth.jsonl"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let rows = r.stdout.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains("\t") }
        #expect(rows.count == 180, "\(rows.count) observation rows")  // 90 frames, 2 markers
        #expect(r.stdout.contains("corner error median / p90 / max (px)"))
        let j = try await Self.run(["score", "--json", "--per-frame", sequence, sequence + "/groundtruth.jsonl"])
        let score = try JSONDecoder().decode(Score.self, from: Data(j.stdout.utf8))
        #expect(score.observations?.count == 180 && score.observations?.allSatisfy { $0.cornerError == 0 } == true)
        let plain = try await Self.run(["score", "--json", sequence, sequence + "/groundtruth.jsonl"])
        #expect(!plain.stdout.contains("observations"))

        let out = TemporaryFolder("plots"), streams = TemporaryFolder("plotted")
        let tracked = try await Self.run(["track", Paths.dataset("room-walk"), "--world", "-o", streams.file("walk.jsonl")], timeout: 900)
        #expect(tracked.status == 0, "stderr: \(tracked.stderr)")
        let world = try await Self.run(["plot", Paths.dataset("room-walk"), streams.file("walk.jsonl"), "-o", out.path])
        #expect(world.status == 0, "stderr: \(world.stderr)")
        #expect(out.contents().sorted() == ["errors.svg", "trajectory.svg"])
        let errors = try String(contentsOfFile: out.file("errors.svg"), encoding: .utf8)
        #expect(errors.hasPrefix("<svg") && errors.contains("image/home") && errors.contains("<polyline"))
        let bad = try await Self.run(["plot", sequence, sequence + "/groundtruth.jsonl", "-o", out.path, "--ceiling", "0"])
        #expect(bad.status == 1 && bad.stderr.contains("--ceiling"))
    }

    /// Mistakes told before (or early in) the work: a wrong dictionary after 60 frames, a stream of
    /// another sequence refused by score and plot, a stream without targets warned about, an
    /// overlay on a name nothing carries warned about before rendering.
    @Test func mistakesCaughtBeforeTheWork() async throws {
        let out = TemporaryFolder("mistakes")
        let blur = Paths.dataset("markers-blur")
        let wrong = try await Self.run(["track", blur, "--markers", "DICT_5X5_50:0.1", "--world", "--poses", blur + "/groundtruth.jsonl",
                                        "-o", out.file("wrong.jsonl"), "--quiet"])
        #expect(wrong.status == 0 && wrong.stderr.contains("no DICT_5X5_50 marker in the first 60 frames"), "\(wrong.stderr)")
        let worldOnly = try await Self.run(["score", blur, out.file("wrong.jsonl")])
        #expect(worldOnly.status == 0 && worldOnly.stderr.contains("reports no marker or image") && worldOnly.stderr.contains("world-only"),
                "\(worldOnly.stderr)")
        for command in ["score", "plot"] {
            let other = try await Self.run([command, blur, Paths.dataset("markers-aruco-table") + "/groundtruth.jsonl"]
                                           + (command == "plot" ? ["-o", out.file("plots")] : []))
            Self.expectCleanFailure(other, mentions: ["markers-blur's 90", "another sequence"])
        }
        let render = try await Self.run(["render", Paths.dataset("images-still"), "--overlay", "stary=#ff0000", "--still", "0",
                                         "-o", out.file("still.png"), "--quiet"])
        #expect(render.status == 0 && render.stderr.contains("overlay 1 on \"stary\": no reference image"), "\(render.stderr)")
    }

    /// QR codes from the command line: a photo with --qr, a size pattern that matches nothing (warned
    /// about when first read), a malformed --qr-size, and the photo benchmark's JSON.
    @Test func qrCodesFromTheCommandLine() async throws {
        let out = TemporaryFolder("qr")
        let photo = Paths.dataset("qr-photos") + "/qrcode-4-01.png"
        let camera = out.file("camera.json")
        try #"{"width": 240, "height": 240, "fx": 300, "fy": 300, "cx": 119.5, "cy": 119.5}"#.write(toFile: camera, atomically: true, encoding: .utf8)
        let sized = try await Self.run(["track", photo, "--camera", camera, "--qr", "0.05", "-o", out.file("a.jsonl"), "--quiet"])
        #expect(sized.status == 0, "\(sized.stderr)")
        let line = try String(contentsOfFile: out.file("a.jsonl"), encoding: .utf8)
        #expect(line.contains(#""type":"qr""#) && line.contains(#""payload":"Google Print Ads - T.G.I.A.F. - January 31, 2008""#), "\(line)")
        let unsized = try await Self.run(["track", photo, "--camera", camera, "--qr-size", "https://*=0.05", "-o", out.file("b.jsonl"), "--quiet"])
        #expect(unsized.status == 0 && unsized.stderr.contains("has no size, so no anchor"), "\(unsized.stderr)")
        let bad = try await Self.run(["track", photo, "--camera", camera, "--qr-size", "https://*", "-o", out.file("c.jsonl"), "--quiet"])
        Self.expectCleanFailure(bad, mentions: ["PATTERN=SIZE_METRES"])
        #expect(!FileManager.default.fileExists(atPath: out.file("c.jsonl")))
        let bench = try await Self.run(["bench", "qr-photos", Paths.dataset("qr-photos"), "--repeats", "1", "--json"], timeout: 600)
        #expect(bench.status == 0, "\(bench.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(bench.stdout.utf8)) as? [String: Any])
        let readers = try #require(report["readers"] as? [[String: Any]])
        #expect((readers.first?["read"] as? Int ?? 0) >= 53)
    }

    @Test func versionAndRaycastJSON() async throws {
        let v = try await Self.run(["--version"])
        #expect(v.status == 0 && v.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == AnchorKitVersionForTests.expected)
        let r = try await Self.run(["raycast", Paths.dataset("room-walk"), "--frame", "119", "--pixel", "320,400", "--json"], timeout: 600)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("\"plane/") && !r.stdout.contains("\\/"), "\(r.stdout)")

        let poster = Paths.dataset("images-still") + "/targets/starry.png"
        let c = try await Self.run(["check-image", "--json", poster])
        #expect(c.status == 0, "stderr: \(c.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(c.stdout.utf8)) as? [String: Any])
        let images = try #require(report["images"] as? [[String: Any]])
        #expect(images.count == 1 && images[0]["file"] as? String == poster && (images[0]["score"] as? Int ?? -1) >= 0)
        #expect((report["lookAlikes"] as? [Any])?.isEmpty == true)
    }

    @Test func scoreTheGroundTruthAgainstItself() async throws {
        let sequence = Paths.dataset("markers-blur")
        let r = try await Self.run(["score", sequence, sequence + "/groundtruth.jsonl"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("100.0 %"))
        #expect(r.stdout.split(separator: "\n").contains { $0.hasPrefix("false positives") && $0.hasSuffix(" 0") })
    }

    @Test func trackAFramePatternWithCameraAndMarkers() async throws {
        // Frames rendered by the library, read through a printf pattern with --camera and --markers.
        let work = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: work.file("frames"), withIntermediateDirectories: true)
        let truth = try MarkerPoseTests.render(id: 7, cameraFromAnchor: MarkerPoseTests.poses[0].transform)
        for i in 0..<3 { try truth.image.write(to: work.file(String(format: "frames/%06d.png", i))) }
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let out = TemporaryFolder()
        let r = try await Self.trackFrames(in: work, camera: camera, output: out)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stderr.isEmpty, "--quiet prints nothing on stderr: \(r.stderr)")
        #expect(r.stdout.hasPrefix("track: 3 frames, 1 anchors"), "\(r.stdout)")
        let updates = try AnchorStreamReader.read(contentsOf: out.file("a.jsonl"), camera: testCamera)
        #expect(updates.count == 3)
        #expect(updates.last?.anchor("marker/DICT_4X4_50/7")?.isTracked == true)
    }

    /// `reference-db` then `track --references` gives the same anchors as loading the images;
    /// a truncated database and one whose image changed are refused in one line.
    @Test func referenceDatabaseRoundTrip() async throws {
        let work = TemporaryFolder()
        let sequence = Paths.dataset("images-still")
        let db = work.file("refs.akrefs")
        let built = try await Self.run(["reference-db", sequence, "-o", db])
        #expect(built.status == 0, "stderr: \(built.stderr)")
        #expect(built.stdout.hasPrefix("reference-db: 1 references, "), "\(built.stdout)")
        let viaImages = try await Self.run(["track", sequence, "-o", work.file("a.jsonl"), "--quiet"])
        let viaDatabase = try await Self.run(["track", sequence, "--references", db, "-o", work.file("b.jsonl"), "--quiet"])
        #expect(viaImages.status == 0 && viaDatabase.status == 0, "stderr: \(viaDatabase.stderr)")
        let a = try AnchorStreamReader.read(contentsOf: work.file("a.jsonl"), camera: testCamera)
        let b = try AnchorStreamReader.read(contentsOf: work.file("b.jsonl"), camera: testCamera)
        #expect(a.count == 90 && a.map(\.anchors) == b.map(\.anchors))

        let data = try #require(FileManager.default.contents(atPath: db))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: work.file("half.akrefs")))
        let out = TemporaryFolder()
        let truncated = try await Self.run(["track", sequence, "--references", work.file("half.akrefs"), "-o", out.file("c.jsonl")])
        Self.expectCleanFailure(truncated, mentions: [work.file("half.akrefs"), "truncated"], outputFolder: out)

        // A database whose image was replaced by another picture of another size.
        let copy = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: copy.file("targets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sequence + "/targets/starry.png", toPath: copy.file("targets/starry.png"))
        try FileManager.default.copyItem(atPath: sequence + "/sequence.json", toPath: copy.file("sequence.json"))
        let stale = copy.file("refs.akrefs")
        #expect(try await Self.run(["reference-db", copy.path, "-o", stale]).status == 0)
        try FileManager.default.removeItem(atPath: copy.file("targets/starry.png"))
        try FileManager.default.copyItem(atPath: Paths.dataset("images-occlusion") + "/targets/butterfly.png",
                                         toPath: copy.file("targets/starry.png"))
        let changed = try await Self.run(["track", sequence, "--references", stale, "-o", out.file("d.jsonl")])
        Self.expectCleanFailure(changed, mentions: [stale, "changed"], outputFolder: out)
    }

    // MARK: Bad input

    /// `--world` with recorded poses (the ground truth's): a metric world, scored with the
    /// trajectory rows; a malformed pose file, `--poses` without `--world` and `--gravity` with
    /// markers only are refused.
    @Test func worldTrackingWithRecordedPoses() async throws {
        let out = TemporaryFolder()
        let output = out.file("world.jsonl")
        let sequence = Paths.dataset("markers-aruco-table")
        let r = try await Self.run(["track", sequence, "--world", "--poses", sequence + "/groundtruth.jsonl", "-o", output])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("camera normal in 120 frames (scale metric)"), "stdout: \(r.stdout)")
        let s = try await Self.run(["score", sequence, output])
        for row in ["ATE RMS (m)", "time to normal (s)", "tracking lost / regained", "drift marker/DICT_4X4_50/7 (cm)"] {
            #expect(s.stdout.contains(row), "no \"\(row)\" row in:\n\(s.stdout)")
        }
        let bad = try out.write("poses.jsonl", "{\"frame\": 0, \"transform\": [1, 2]}\n")
        let b = try await Self.run(["track", sequence, "--world", "--poses", bad, "-o", out.file("bad.jsonl")])
        #expect(b.status != 0 && b.stderrLines.count == 1 && b.stderr.contains(bad) && b.stderr.contains("16 numbers"),
                "stderr: \(b.stderr)")
        let c = try await Self.run(["track", sequence, "--poses", bad, "-o", out.file("bad.jsonl")])
        #expect(c.status != 0 && c.stderr.contains("need --world"), "stderr: \(c.stderr)")
        // Gravity serves world tracking and reference images: a marker-only run refuses it.
        let g = try await Self.run(["track", sequence, "--gravity", sequence + "/gravity.jsonl", "-o", out.file("bad.jsonl")])
        #expect(g.status != 0 && g.stderr.contains("--gravity needs --world or reference images"), "stderr: \(g.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.file("bad.jsonl")))
    }

    @Test func missingInput() async throws {
        let out = TemporaryFolder()
        let input = TemporaryFolder().file("no-such-sequence")
        let r = try await Self.run(["track", input, "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [input, "no such file"], outputFolder: out)
    }

    @Test func textFileNamedMP4() async throws {
        let work = TemporaryFolder()
        let fake = try work.write("clip.mp4", "this is not a video\n")
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let out = TemporaryFolder()
        let r = try await Self.run(["track", fake, "--camera", camera, "--markers", "DICT_4X4_50:0.08",
                                    "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [fake], outputFolder: out)
    }

    @Test func truncatedVideo() async throws {
        let work = TemporaryFolder()
        let original = Paths.dataset("markers-blur")
        for name in ["sequence.json", "groundtruth.jsonl", "gravity.jsonl"] {
            try FileManager.default.copyItem(atPath: original + "/" + name, toPath: work.file(name))
        }
        let video = try #require(FileManager.default.contents(atPath: original + "/video.mp4"))
        try video.prefix(video.count / 2).write(to: URL(fileURLWithPath: work.file("video.mp4")))
        let out = TemporaryFolder()
        let r = try await Self.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [work.file("video.mp4")], outputFolder: out)
    }

    @Test func truncatedVideoWithItsIndex() async throws {
        // Cut after a front index: the video opens and runs out of frames part-way.
        let work = TemporaryFolder()
        let original = Paths.dataset("markers-blur")
        for name in ["sequence.json", "groundtruth.jsonl", "gravity.jsonl"] {
            try FileManager.default.copyItem(atPath: original + "/" + name, toPath: work.file(name))
        }
        let bytes = try #require(FileManager.default.contents(atPath: original + "/video.mp4"))
        let video = try #require(MP4.faststart(bytes))
        try video.prefix(video.count / 2).write(to: URL(fileURLWithPath: work.file("video.mp4")))
        let out = TemporaryFolder()
        let r = try await Self.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [work.file("video.mp4"), "truncated"], outputFolder: out)
    }

    @Test func framePatternWithoutANumber() async throws {
        // "%%" is a literal percent sign: the pattern names one file, not a numbered series.
        let work = TemporaryFolder()
        try Image.filled(width: 640, height: 480, value: 120).write(to: work.file("still%.png"))
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let out = TemporaryFolder()
        let r = try await Self.run(["track", work.file("still%%.png"), "--camera", camera, "--markers", "DICT_4X4_50:0.08",
                                    "-o", out.file("a.jsonl"), "--quiet"], timeout: 20)
        Self.expectCleanFailure(r, mentions: [work.file("still%%.png")], outputFolder: out)
    }

    @Test func unknownDictionary() async throws {
        let out = TemporaryFolder()
        let r = try await Self.run(["track", Paths.dataset("markers-blur"), "--markers", "DICT_9X9_1:0.1",
                                    "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: ["DICT_9X9_1"], outputFolder: out)
    }

    @Test(arguments: ["DICT_4X4_50", "DICT_4X4_50:big", "DICT_4X4_50:-0.1", "DICT_4X4_50:0.1:a,b"])
    func malformedMarkersArgument(_ argument: String) async throws {
        let out = TemporaryFolder()
        let r = try await Self.run(["track", Paths.dataset("markers-blur"), "--markers", argument,
                                    "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [argument], outputFolder: out)
    }

    @Test func malformedSequenceJSON() async throws {
        let work = TemporaryFolder()
        let path = try work.write("sequence.json", #"{"name": "broken", "fps": 30, "video": "#)
        let out = TemporaryFolder()
        let r = try await Self.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [path, "JSON"], outputFolder: out)
    }

    @Test func malformedCameraJSON() async throws {
        let work = TemporaryFolder()
        let camera = try work.write("camera.json", #"{"width": 640, "height": 480, "fx": 525,"#)
        let out = TemporaryFolder()
        let r = try await Self.run(["track", Paths.dataset("markers-blur"), "--camera", camera,
                                    "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [camera, "JSON"], outputFolder: out)
    }

    @Test func intrinsicsForAnotherFrameSize() async throws {
        let work = TemporaryFolder()
        let camera = try work.write("camera.json", #"{"width": 320, "height": 240, "fx": 262.5, "fy": 262.5, "cx": 159.5, "cy": 119.5}"#)
        let out = TemporaryFolder()
        let r = try await Self.run(["track", Paths.dataset("markers-blur"), "--camera", camera,
                                    "-o", out.file("a.jsonl"), "--quiet"])
        Self.expectCleanFailure(r, mentions: [camera, "320x240", "640x480"], outputFolder: out)
    }

    /// `track` on `work`'s frames/%06d.png with `camera`, writing into `output`.
    static func trackFrames(in work: TemporaryFolder, camera: String, output: TemporaryFolder) async throws -> Result {
        try await run(["track", work.file("frames/%06d.png"), "--camera", camera,
                       "--markers", "DICT_4X4_50:0.08", "-o", output.file("a.jsonl"), "--quiet"])
    }

    @Test func emptyPNGFrame() async throws {
        let work = TemporaryFolder()
        try work.write("frames/000000.png", "")
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let out = TemporaryFolder()
        let r = try await Self.trackFrames(in: work, camera: camera, output: out)
        Self.expectCleanFailure(r, mentions: [work.file("frames/000000.png")], outputFolder: out)
    }

    @Test func emptyPNGFrameAfterGoodOnes() async throws {
        // A bad frame in the middle: the run fails and the partial output is not left behind.
        let work = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: work.file("frames"), withIntermediateDirectories: true)
        let gray = try Image.filled(width: 640, height: 480, value: 120)
        for i in 0..<2 { try gray.write(to: work.file(String(format: "frames/%06d.png", i))) }
        try work.write("frames/000002.png", "")
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let out = TemporaryFolder()
        let r = try await Self.trackFrames(in: work, camera: camera, output: out)
        Self.expectCleanFailure(r, mentions: [work.file("frames/000002.png")], outputFolder: out)
    }

    @Test func enormousPNGFrame() async throws {
        let work = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: work.file("frames"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.fixtures + "/enormous.png", toPath: work.file("frames/000000.png"))
        let camera = try work.write("camera.json",
                                    #"{"width": 12000, "height": 12000, "fx": 9000, "fy": 9000, "cx": 5999.5, "cy": 5999.5}"#)
        let out = TemporaryFolder()
        let started = Date()
        let r = try await Self.run(["track", work.file("frames/%06d.png"), "--camera", camera,
                                    "--markers", "DICT_4X4_50:0.08", "-o", out.file("a.jsonl"), "--quiet"], timeout: 300)
        Self.expectCleanFailure(r, mentions: [work.file("frames/000000.png"), "large"], outputFolder: out)
        print("enormous PNG: exit \(r.status) after \(String(format: "%.1f", Date().timeIntervalSince(started))) s; stderr: \(r.stderr)")
    }

    @Test func outputInAMissingFolder() async throws {
        let out = TemporaryFolder()
        let output = out.file("missing/anchors.jsonl")
        let r = try await Self.run(["track", Paths.dataset("markers-blur"), "-o", output, "--quiet"])
        Self.expectCleanFailure(r, mentions: [output, "does not exist"], outputFolder: out)
        #expect(!FileManager.default.fileExists(atPath: out.file("missing")))
    }

    @Test func scoreAMalformedStream() async throws {
        let work = TemporaryFolder()
        let truthLine = try #require(try String(contentsOfFile: Paths.dataset("markers-blur") + "/groundtruth.jsonl", encoding: .utf8)
                                        .split(separator: "\n").first)
        let anchors = try work.write("anchors.jsonl", truthLine + "\n{\"frame\": 1, \"camera\": \n")
        let r = try await Self.run(["score", Paths.dataset("markers-blur"), anchors])
        Self.expectCleanFailure(r, mentions: [anchors, "line 2"])
        #expect(r.stdout.isEmpty, "no table for a bad stream: \(r.stdout)")
    }

    @Test func scoreAMissingStream() async throws {
        let anchors = TemporaryFolder().file("anchors.jsonl")
        let r = try await Self.run(["score", Paths.dataset("markers-blur"), anchors])
        Self.expectCleanFailure(r, mentions: [anchors, "no such file"])
    }

    // MARK: The one-line error text

    @Test func describeGivesTheErrorsOwnDescription() {
        // The CLI prints `anchorkit: error: \(describe(error))`: it must be the error's own text.
        #expect(describe(InputError("/data/seq/sequence.json", "fps must be positive, got 0.0"))
                    == "/data/seq/sequence.json: fps must be positive, got 0.0")
        #expect(describe(MarkerError("unknown marker dictionary \"X\"")) == "unknown marker dictionary \"X\"")
        #expect(describe(IntrinsicsError(message: "two\nlines")) == "two lines")
        #expect(describe(TransformError.notFinite) == TransformError.notFinite.description)
    }
}

/// The version `anchorkit --version` prints (the CLI's constant; the test binary cannot import it).
enum AnchorKitVersionForTests { static let expected = "0.9.0" }
