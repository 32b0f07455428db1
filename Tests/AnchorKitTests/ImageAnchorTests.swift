import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitSynthesis

/// Reference-image anchors on the committed image sequences (rendered posters with exact
/// ground truth), and the reference-image bad-input cases.
@Suite("Image anchors")
struct ImageAnchorTests {
    static let sequences = ["images-approach", "images-occlusion", "images-still"]

    /// The naive per-frame mode: detection in every frame, nothing followed.
    static var naive: ImageTracker.Parameters {
        var p = ImageTracker.Parameters()
        p.detectEveryFrame = true
        return p
    }

    /// Tracks a committed sequence through the library and scores it.
    static func score(_ name: String, mode: ImageTracker.Parameters = ImageTracker.Parameters()) throws -> Score {
        let sequence = try RecordedSequence(folder: Paths.dataset(name))
        var configuration = try Configuration(sequence: sequence)
        configuration.imageTracking = mode
        let session = try Session(configuration: configuration)
        let frames = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try frames.nextFrame() { updates.append(try session.process(frame)) }
        let truth = try #require(try sequence.groundTruth())
        return Scorer(camera: sequence.description.camera).score(reported: updates, truth: truth)
    }

    @Test(arguments: sequences)
    func trackedPosesMatchTheTruth(_ name: String) throws {
        let s = try Self.score(name)
        print("images \(name): success@5 \(s.successRate(at: 5) ?? 0), false positives \(s.falsePositives), "
              + "corner median \(s.cornerError?.median ?? .nan) px, rotation median \(s.rotationErrorDegrees?.median ?? .nan)°, "
              + "translation median \(s.translationErrorPercent?.median ?? .nan) %, jitter \(s.jitterRMS ?? .nan) px")
        // images-occlusion hides the poster behind a card and half out of view on purpose.
        #expect((s.successRate(at: 5) ?? 0) >= (name == "images-occlusion" ? 0.9 : 0.98))
        #expect(s.falsePositives == 0)
        #expect((s.cornerError?.median ?? .infinity) < 0.5)
        #expect((s.rotationErrorDegrees?.median ?? .infinity) < 1.5)
        #expect((s.translationErrorPercent?.median ?? .infinity) < 1.0)
    }

    /// A fast shake (motion blur up to 35 px, 1/30 s shutter) while the light falls to a quarter
    /// and rises to 2.8 times: the reference is blurred like the frame before it is aligned, so
    /// the target is followed through the blur, from the frame after it is found (no velocity
    /// yet: it is aligned at the blur of the flow's motion); detecting afresh in every frame loses
    /// it there.
    @Test func followedThroughMotionBlurAndLight() throws {
        let ours = try Self.score("images-shake"), baseline = try Self.score("images-shake", mode: Self.naive)
        print("images-shake: success@5 \(ours.successRate(at: 5) ?? 0) (detect-every-frame \(baseline.successRate(at: 5) ?? 0)), "
              + "false positives \(ours.falsePositives), rotation median \(ours.rotationErrorDegrees?.median ?? .nan)°")
        #expect((ours.successRate(at: 5) ?? 0) >= 0.95)
        #expect((baseline.successRate(at: 5) ?? 1) < 0.5)
        #expect(ours.falsePositives == 0)
        #expect((ours.rotationErrorDegrees?.median ?? .infinity) < 1)
    }

    /// A 40 cm poster approached from 5 m (40 px wide at first, at 640x480): a closer look at
    /// twice the resolution where a few matches to it cluster finds it from the first frames.
    @Test func smallTargetFoundFromAfar() throws {
        let ours = try Self.score("images-far-approach"), baseline = try Self.score("images-far-approach", mode: Self.naive)
        print("images-far-approach: success@5 \(ours.successRate(at: 5) ?? 0) (detect-every-frame \(baseline.successRate(at: 5) ?? 0)), "
              + "false positives \(ours.falsePositives)")
        #expect((ours.successRate(at: 5) ?? 0) >= 0.95)
        #expect((baseline.successRate(at: 5) ?? 1) < 0.8)
        #expect(ours.falsePositives == 0)
    }

    /// Each frame taken as an unrelated photo (`--stills`) is searched by the full detection
    /// (closer looks, alignment, verification), not the naive per-frame mode's brute-force
    /// matching: the far poster is found in every frame as when followed, and the near one as
    /// accurately.
    @Test func stillPhotosGetTheFullDetection() throws {
        let stills = ImageTracker.Parameters().forStills()
        let near = try Self.score("images-approach", mode: stills), far = try Self.score("images-far-approach", mode: stills)
        let naiveFar = try Self.score("images-far-approach", mode: Self.naive)
        print("stills: images-approach success@5 \(near.successRate(at: 5) ?? 0), rotation median "
              + "\(near.rotationErrorDegrees?.median ?? .nan)°; images-far-approach success@5 \(far.successRate(at: 5) ?? 0) "
              + "(detect-every-frame \(naiveFar.successRate(at: 5) ?? 0))")
        #expect((near.successRate(at: 5) ?? 0) >= 0.98)
        #expect((near.rotationErrorDegrees?.median ?? .infinity) < 0.5)
        #expect((far.successRate(at: 5) ?? 0) >= 0.95)
        #expect((naiveFar.successRate(at: 5) ?? 1) < 0.8)
        #expect(near.falsePositives == 0 && far.falsePositives == 0)
    }

    /// On a still camera, following (with alignment and the pose filter) jitters far less than
    /// detecting afresh in every frame.
    @Test func stillCameraJitter() throws {
        var naive = Self.naive
        naive.filter = nil
        let ours = try #require(try Self.score("images-still").jitterRMS)
        let baseline = try #require(try Self.score("images-still", mode: naive).jitterRMS)
        print("images-still jitter: tracking \(ours) px, detect-every-frame \(baseline) px")
        #expect(ours <= baseline / 2)
    }

    /// A poster entering the view is first matched by a dozen points near one corner
    /// (room-planes, frame 18: 12 inliers of 27 matches, a homography 70 px off at the far
    /// corners, which ECC alone leaves at correlation 0.66). Its first report is already aligned.
    @Test func firstDetectionFromFewMatchesIsAligned() throws {
        var scene = try RoomScenes.scene(named: "room-planes")
        scene.frameCount = 19
        let folder = TemporaryFolder("first-detection")
        try SequenceSynthesizer().write(scene, to: folder.file("sequence"))
        let sequence = try RecordedSequence(folder: folder.file("sequence"))
        let configuration = try Configuration(sequence: sequence)
        let tracker = ImageTracker(references: try #require(configuration.referenceImages), camera: configuration.camera)
        let frames = try sequence.openFrames()
        var last: Frame?
        while let frame = try frames.nextFrame() { last = frame }
        let frame = try #require(last)
        let truth = try #require(try sequence.groundTruth()?.last?.anchors.first { $0.identifier == "image/home" }?.corners)
        let corners = try #require(try tracker.observe(frame).first?.corners)
        let worst = zip(corners, truth).map { length($0 - $1) }.max() ?? .infinity
        print("first detection at frame \(frame.index): worst corner \(worst) px")
        #expect(worst < 1.5)
    }

    /// Two posters lying on a table, 62° off the camera's view, among 53 references (the first 6
    /// frames of images-table): found from the first frame in the top view the frame's gravity
    /// gives, and not without gravity.
    @Test func postersLyingOnATableAreFoundFromTheFirstFrame() throws {
        var scene = try ImageScenes.scene(named: "images-table")
        scene.frameCount = 6  // the walk's first 6 frames (a shorter walk would move, and blur, faster)
        let folder = TemporaryFolder("table")
        try SequenceSynthesizer().write(scene, to: folder.file("sequence"))
        let sequence = try RecordedSequence(folder: folder.file("sequence"))
        func score(gravity: Bool) throws -> Score {
            var configuration = try Configuration(sequence: sequence)
            if !gravity { configuration.gravity = nil }
            let session = try Session(configuration: configuration)
            let frames = try sequence.openFrames()
            var updates: [FrameUpdate] = []
            while let frame = try frames.nextFrame() { updates.append(try session.process(frame)) }
            return Scorer(camera: sequence.description.camera).score(reported: updates, truth: try #require(try sequence.groundTruth()))
        }
        let seen = try score(gravity: true), unseen = try score(gravity: false)
        print("images-table, 6 frames: success@5 \(seen.successRate(at: 5) ?? 0) with gravity, \(unseen.successRate(at: 5) ?? 0) without")
        #expect(seen.successRate(at: 5) == 1)
        #expect(seen.falsePositives == 0 && unseen.falsePositives == 0)
        #expect((unseen.successRate(at: 5) ?? 1) < 0.5)
    }

    @Test func referenceImageValidation() throws {
        let path = Paths.dataset("images-still") + "/targets/starry.png"
        #expect(throws: ReferenceImageError.self) { _ = try ReferenceImage(name: "a", contentsOf: path, physicalWidth: 0) }
        #expect(throws: ReferenceImageError.self) { _ = try ReferenceImage(name: "a", contentsOf: path, physicalWidth: -1) }
        let image = try ReferenceImage(name: "starry", contentsOf: path, physicalWidth: 0.5)
        // The height follows the file's aspect (752x600), not the working copy's rounded one (640x511).
        #expect(abs(image.physicalHeight - 0.5 * 600 / 752) < 1e-12)
        #expect(image.width == 640 && image.height == 511)
        #expect(throws: ReferenceImageError.self) { _ = try ReferenceImageSet([image, image]) }
        let tiny = try Image.filled(width: 20, height: 20, channels: 1, value: 128)
        #expect(throws: ReferenceImageError.self) { _ = try ReferenceImage(name: "tiny", image: tiny, physicalWidth: 0.1) }
        #expect(throws: ReferenceImageError.self) { _ = try ReferenceImageSet.target(argument: "poster.png:0.4") }
        let t = try ReferenceImageSet.target(argument: "poster=dir/poster.png:0.4")
        #expect(t.name == "poster" && t.file == "dir/poster.png" && t.physicalWidth == 0.4)
    }

    @Test func badReferenceImagesOnTheCommandLine() async throws {
        let sequence = Paths.dataset("images-still")
        let out = TemporaryFolder()
        let text = try out.write("notes.png", "not an image")
        let cases: [([String], [String])] = [
            (["--image", "poster=\(text):0.4"], [text]),
            (["--image", "poster=\(sequence)/targets/starry.png:0"], ["physicalWidth"]),
            (["--image", "a=\(sequence)/targets/starry.png:0.4", "--image", "a=\(sequence)/targets/starry.png:0.4"], ["\"a\""]),
            (["--image", "missing=/nonexistent/poster.png:0.4"], ["/nonexistent/poster.png"]),
        ]
        for (arguments, mentions) in cases {
            let r = try await CLITests.run(["track", sequence] + arguments + ["-o", out.file("out.jsonl"), "--quiet"])
            CLITests.expectCleanFailure(r, mentions: mentions)
            #expect(!FileManager.default.fileExists(atPath: out.file("out.jsonl")))
        }
    }

    /// The quality check on opencv-doc photographs with known faults.
    @Test func qualityCheck() throws {
        func quality(_ name: String) throws -> ImageQuality {
            let image = try PhotoLibrary.photo(name)
            let reference = try ReferenceImage(name: "q", image: image, physicalWidth: 1)
            return try ImageQuality.evaluate(reference, originalSize: (image.width, image.height))
        }
        let good = try quality("starry_night.jpg")
        #expect(good.score >= 90, "\(good)")
        let chessboard = try quality("chessboard.png")
        #expect(chessboard.score < 75 && chessboard.reasons.contains { $0.hasPrefix("repetitive") }, "\(chessboard)")
        let gradient = try quality("gradient.png")
        #expect(gradient.score < 20 && gradient.reasons.contains { $0.hasPrefix("too few features") }, "\(gradient)")
        let small = try quality("HappyFish.jpg")
        #expect(small.reasons.contains { $0.hasPrefix("too small") }, "\(small)")

        let graffiti = try PhotoLibrary.photo("graf1.png")
        let set = try ReferenceImageSet([
            try ReferenceImage(name: "a", image: graffiti, physicalWidth: 1),
            try ReferenceImage(name: "b", image: try graffiti.resized(width: 400, height: 320), physicalWidth: 1),
            try ReferenceImage(name: "c", image: try PhotoLibrary.photo("starry_night.jpg"), physicalWidth: 1)])
        let alike = try set.lookAlikes()
        #expect(alike.count == 1 && alike.first?.0 == "a" && alike.first?.1 == "b", "\(alike)")
    }

    /// The LSH tables come from a fixed seed. FLANN's came from the calling thread's OpenCV random
    /// state: two indexes built one after the other on one thread differed, so a session's matches
    /// (and the room walk's poster score, 62-77 %) depended on what ran before it.
    @Test func lshIndexIsTheSameWhateverRanBefore() throws {
        let references = try ["graf1.png", "starry_night.jpg"].map { try FeatureSet(image: try PhotoLibrary.photo($0)) }
        let query = try FeatureSet(image: try PhotoLibrary.photo("graf3.png"))
        let first = try FeatureIndex(references: references, kind: .lsh).match(query)
        let second = try FeatureIndex(references: references, kind: .lsh).match(query)
        #expect(first.count > 100 && first == second)
    }

    /// The exhaustive index (binary_lsh.cpp's nearestTwoExhaustive, in place of OpenCV's BFMatcher
    /// since it gives the same matches at a fraction of the cost) gives every query of a real
    /// photo its nearest reference feature, the first of any tie, and the runner-up's distance,
    /// as recomputed here bit by bit.
    @Test func exhaustiveMatchesAreTheNearestTwo() throws {
        let reference = try FeatureSet(image: try PhotoLibrary.photo("graf1.png"))
        let query = try FeatureSet(image: try PhotoLibrary.photo("graf3.png"))
        let matches = try FeatureIndex(references: [reference], kind: .bruteForce).match(query)
        let bytes = 32, r = reference.descriptors, q = query.descriptors
        func distance(_ i: Int, _ j: Int) -> Int {
            (0..<bytes).reduce(0) { $0 + (q[i * bytes + $1] ^ r[j * bytes + $1]).nonzeroBitCount }
        }
        #expect(matches.count == query.count && query.count > 100)
        for m in matches {
            let all = (0..<reference.count).map { distance(m.query, $0) }
            let best = all.min()!
            let second = all.enumerated().filter { $0.offset != m.train }.map(\.element).min()!
            #expect(m.reference == 0 && m.train == all.firstIndex(of: best)! && m.distance == best && m.secondDistance == second)
        }
    }

    /// The LSH tables (binary_lsh.cpp) find what brute force finds: of the graffiti matches that
    /// pass the ratio test exhaustively, LSH finds the same nearest reference feature for most.
    @Test func lshFindsTheExhaustiveMatches() throws {
        let references = try ["graf1.png", "starry_night.jpg", "left.jpg"].map { try FeatureSet(image: try PhotoLibrary.photo($0)) }
        let query = try FeatureSet(image: try PhotoLibrary.photo("graf3.png"))
        let exact = try FeatureIndex(references: references, kind: .bruteForce).match(query).filter { $0.isDistinctive(ratio: 0.8) }
        let approximate = Dictionary(try FeatureIndex(references: references, kind: .lsh).match(query).map { ($0.query, $0) },
                                     uniquingKeysWith: { a, _ in a })
        let found = exact.filter { approximate[$0.query].map { a in (a.reference, a.train) } ?? (-1, -1) == ($0.reference, $0.train) }
        let recall = Double(found.count) / Double(exact.count)
        print("LSH recall of the exhaustive ratio-test matches: \(found.count) of \(exact.count) (\(recall))")
        #expect(exact.count > 100 && recall >= 0.9)
    }
}
