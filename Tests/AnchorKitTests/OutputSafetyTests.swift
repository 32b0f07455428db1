import Foundation
import Testing
@testable import AnchorKit

/// Issue 21, "never lose a user's data": what `-o` names is checked before any work (a folder is
/// never replaced, an input never overwritten, an existing file kept with `--no-overwrite`), and
/// an interrupted or killed run leaves no partial file behind.
extension CLITests {
    /// `command` on a small committed sequence, writing to `output`.
    static func writing(_ command: String, to output: String) -> [String] {
        let still = Paths.dataset("images-still")
        switch command {
        case "track": return ["track", Paths.dataset("markers-aruco-table"), "-o", output, "--quiet"]
        case "reference-db": return ["reference-db", still, "-o", output]
        case "render": return ["render", still, "--debug", "-o", output, "--quiet"]
        case "render --still": return ["render", still, "--debug", "--still", "0", "-o", output, "--quiet"]
        default: return ["synth", "markers-blur", "--frames", "2", "-o", output, "--quiet"]
        }
    }

    /// A copy of the committed images-still sequence (video, sequence.json, reference image).
    static func copyOfImagesStill(in work: TemporaryFolder) throws -> String {
        let copy = work.file("seq")
        try FileManager.default.copyItem(atPath: Paths.dataset("images-still"), toPath: copy)
        return copy
    }

    @Test(arguments: ["track", "reference-db", "render", "render --still", "synth"])
    func anExistingFolderIsNeverReplaced(_ command: String) async throws {
        let work = TemporaryFolder()
        let folder = work.file(command == "render" ? "keep.mp4" : "keep")
        try work.write(folder.split(separator: "/").last! + "/sub/f", "user data")
        let r = try await Self.run(Self.writing(command, to: folder))
        Self.expectCleanFailure(r, mentions: [folder])
        #expect(r.status == 1)
        #expect(try String(contentsOfFile: folder + "/sub/f", encoding: .utf8) == "user data")
        #expect(work.contents().count == 1, "left beside the folder: \(work.contents())")
    }

    /// An input named as the output, directly or through a symlink, a hard link or `./`.
    @Test(arguments: ["video", "sequence.json", "camera", "reference image"])
    func anInputNamedAsTheOutputSurvives(_ input: String) async throws {
        let work = TemporaryFolder()
        let seq = try Self.copyOfImagesStill(in: work)
        let camera = try work.write("camera.json", Self.cameraJSON640)
        let arguments: [String], victim: String
        switch input {
        case "video":
            victim = seq + "/video.mp4"
            try FileManager.default.createSymbolicLink(atPath: work.file("link.mp4"), withDestinationPath: victim)
            arguments = ["render", seq, "--debug", "-o", work.file("link.mp4")]
        case "sequence.json":
            victim = seq + "/sequence.json"
            try FileManager.default.linkItem(atPath: victim, toPath: work.file("hard.jsonl"))
            arguments = ["track", seq, "-o", work.file("hard.jsonl")]
        case "camera":
            victim = camera
            arguments = ["track", seq, "--camera", camera, "-o", work.path + "/./camera.json"]
        default:
            victim = seq + "/targets/starry.png"
            arguments = ["render", seq, "--debug", "--still", "0", "-o", victim]
        }
        let before = try #require(FileManager.default.contents(atPath: victim))
        let listing = work.contents()
        let r = try await Self.run(arguments + ["--quiet"])
        Self.expectCleanFailure(r, mentions: ["is also an input"])
        #expect(FileManager.default.contents(atPath: victim) == before)
        #expect(work.contents() == listing && work.contents("seq") == ["gravity.jsonl", "groundtruth.jsonl", "sequence.json", "targets", "video.mp4"])
    }

    @Test(arguments: ["track", "render --still", "synth"])
    func noOverwriteKeepsAnExistingOutput(_ command: String) async throws {
        let work = TemporaryFolder()
        let output = work.file(command == "render --still" ? "still.png" : "out")
        try work.write("out", "user data")
        if command == "render --still" { try work.write("still.png", "user data") }
        let r = try await Self.run(Self.writing(command, to: output) + ["--no-overwrite"])
        Self.expectCleanFailure(r, mentions: [output, "--no-overwrite"])
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "user data")
        // Without the option a regular file is replaced (synth writes folders: it never replaces a file).
        if command != "synth" { #expect(try await Self.run(Self.writing(command, to: output)).status == 0) }
    }

    @Test func synthReplacesOnlyItsOwnEarlierOutput() async throws {
        let work = TemporaryFolder()
        let folder = work.file("gen")
        #expect(try await Self.run(Self.writing("synth", to: folder)).status == 0)
        let again = try await Self.run(Self.writing("synth", to: folder))
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let other = try await Self.run(["synth", "markers-aruco-table", "--frames", "2", "-o", folder, "--quiet"])
        Self.expectCleanFailure(other, mentions: [folder, "not an earlier synth output"])
        try work.write("gen/notes.txt", "user data")
        Self.expectCleanFailure(try await Self.run(Self.writing("synth", to: folder)), mentions: [folder])
        #expect(FileManager.default.fileExists(atPath: folder + "/notes.txt"))
        #expect(work.contents() == ["gen"])
    }

    @Test func usageErrorsAreOneLineWithStatus1() async throws {
        for arguments in [["track"], ["render", Paths.dataset("images-still"), "-o", "x.mp4"], ["no-such-command"]] {
            let r = try await Self.run(arguments)
            Self.expectCleanFailure(r, mentions: [])
            #expect(r.status == 1, "\(arguments): status \(r.status)")
        }
    }

    /// SIGTERM while the run writes: non-zero exit (128 + 15) and nothing left in the folder.
    @Test(arguments: ["track", "render"])
    func terminatedRunLeavesNoPartialFile(_ command: String) async throws {
        let binary = try #require(Self.binary)
        let out = TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = Self.writing(command, to: out.file(command == "render" ? "%06d.png" : "a.jsonl"))
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Polled on this thread (not with Task.sleep): under a loaded test run the task may not be
        // resumed for seconds, and the run would finish before the signal.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, !out.contents().contains(where: { $0.hasPrefix(".partial-") }), Date() < deadline { usleep(2000) }
        #expect(process.isRunning, "the run ended before it was interrupted")
        process.terminate()
        while process.isRunning, Date() < deadline { usleep(10000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + SIGTERM)
        #expect(out.contents().isEmpty, "left behind: \(out.contents())")
    }

    /// What a killed run left (its pid is gone) is removed by the next run into the folder; a
    /// live process's partial file is not.
    @Test func stalePartialFilesOfADeadRunAreRemoved() async throws {
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let out = TemporaryFolder()
        try out.write(".partial-\(dead.processIdentifier)-a.jsonl", "half")
        try out.write(".partial-\(dead.processIdentifier)-gen/frames/000000.png", "half")
        let live = ".partial-\(getpid())-b.jsonl"
        try out.write(live, "in progress")
        let r = try await Self.run(Self.writing("track", to: out.file("a.jsonl")))
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(out.contents() == [live, "a.jsonl"])
    }
}
