import Foundation
import Testing
@testable import anchorkit

/// `anchorkit batch`: a manifest of jobs run one video per worker, byte for byte what `track`
/// writes, resumable, and split into shards that together give the unsharded result.
@Suite("Batch")
struct BatchTests {
    /// A manifest of two committed sequences (relative outputs, in a folder that does not exist yet).
    static func manifest(in work: TemporaryFolder, extra: String = "") throws -> String {
        try work.write("jobs.jsonl", """
            {"input": "\(Paths.dataset("markers-blur"))", "output": "out/blur.jsonl"}
            {"input": "\(Paths.dataset("images-still"))", "output": "out/still.jsonl", "options": ["--filter", "none"]}
            \(extra)
            """)
    }

    @Test func runsEveryJobAsTrackWouldThenSkipsThem() async throws {
        let work = TemporaryFolder()
        let manifest = try Self.manifest(in: work)
        let r = try await CLITests.run(["batch", manifest, "--workers", "2", "--quiet"], timeout: 900)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.hasPrefix("batch: 2 jobs: 2 done, 0 skipped, 0 failed; 180 frames in "), "\(r.stdout)")
        let direct = TemporaryFolder()
        let t = try await CLITests.run(["track", Paths.dataset("images-still"), "--filter", "none", "-o", direct.file("still.jsonl"), "--quiet"])
        #expect(t.status == 0)
        #expect(FileManager.default.contents(atPath: work.file("out/still.jsonl")) == FileManager.default.contents(atPath: direct.file("still.jsonl")))
        let summary = try JSONDecoder().decode(BatchSummary.self, from: Data(contentsOf: URL(fileURLWithPath: work.file("jobs.summary.json"))))
        #expect(summary.jobs.map(\.status) == [.done, .done])
        #expect(summary.jobs.map(\.frames) == [90, 90])

        // Resumed: nothing left to do, outputs untouched.
        let before = try FileManager.default.attributesOfItem(atPath: work.file("out/blur.jsonl"))[.modificationDate] as? Date
        let again = try await CLITests.run(["batch", manifest, "--quiet"], timeout: 300)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.hasPrefix("batch: 2 jobs: 0 done, 2 skipped, 0 failed"), "\(again.stdout)")
        let after = try FileManager.default.attributesOfItem(atPath: work.file("out/blur.jsonl"))[.modificationDate] as? Date
        #expect(before == after)
    }

    @Test func shardsTogetherGiveTheWholeBatch() async throws {
        let whole = TemporaryFolder(), split = TemporaryFolder()
        let m1 = try Self.manifest(in: whole), m2 = try Self.manifest(in: split)
        let w = try await CLITests.run(["batch", m1, "--quiet"], timeout: 900)
        #expect(w.status == 0, "stderr: \(w.stderr)")
        // Shard 0 from the command line, shard 1 as a Slurm array task (ids 5-6) would give it.
        let s0 = try await CLITests.run(["batch", m2, "--shard", "0/2", "--quiet"], timeout: 900)
        #expect(s0.stdout.hasPrefix("batch: 1 jobs (shard 0/2): 1 done"), "\(s0.stdout) \(s0.stderr)")
        let s1 = try await CLITests.run(["batch", m2, "--quiet"], timeout: 900,
                                        wrapper: ["/usr/bin/env", "SLURM_ARRAY_TASK_ID=6", "SLURM_ARRAY_TASK_MIN=5",
                                                  "SLURM_ARRAY_TASK_COUNT=2", try #require(CLITests.binary)])
        #expect(s1.stdout.hasPrefix("batch: 1 jobs (shard 1/2): 1 done"), "\(s1.stdout) \(s1.stderr)")
        #expect(split.contents().contains("jobs.shard-0-of-2.summary.json") && split.contents().contains("jobs.shard-1-of-2.summary.json"))
        for name in ["out/blur.jsonl", "out/still.jsonl"] {
            let a = FileManager.default.contents(atPath: whole.file(name)), b = FileManager.default.contents(atPath: split.file(name))
            #expect(a != nil && a == b, "\(name) differs")
        }
    }

    @Test func aFailedJobIsReportedAndTheOthersRun() async throws {
        let work = TemporaryFolder()
        let manifest = try Self.manifest(in: work, extra: #"{"input": "missing.mp4", "output": "out/missing.jsonl"}"#)
        let r = try await CLITests.run(["batch", manifest, "--quiet"], timeout: 900)
        #expect(r.status == 1)
        #expect(r.stdout.contains("batch: failed: line 3 missing.mp4: missing.mp4: no such file or folder"), "\(r.stdout)")
        #expect(r.stderr == "anchorkit: error: \(manifest): 1 of 3 jobs failed (see \(work.file("jobs.summary.json")))\n")
        #expect(FileManager.default.fileExists(atPath: work.file("out/blur.jsonl")))
        #expect(!FileManager.default.fileExists(atPath: work.file("out/missing.jsonl")))
    }

    @Test func badManifestsAreOneLineErrorsBeforeAnyJob() async throws {
        let cases: [(String, [String])] = [
            (#"{"input": 3, "output": "a.jsonl"}"#, [":1:", "\"input\" must be a non-empty string"]),
            (#"{"input": "a.mp4", "output": "a.jsonl", "fps": 30}"#, ["unknown key \"fps\""]),
            (#"{"input": "a.mp4", "output": "a.jsonl", "options": ["-o", "b.jsonl"]}"#, ["may not give -o"]),
            ("{\"input\": \"a.mp4\", \"output\": \"a.jsonl\"}\n{\"input\": \"b.mp4\", \"output\": \"a.jsonl\"}", [":2:", "line 1's output"]),
            (#"{"command": "score", "input": "a.mp4", "output": "a.jsonl"}"#, ["must be track or render"]),
            ("not json", ["not a JSON object"]),
            ("\n\n", ["lists no jobs"]),
        ]
        for (text, mentions) in cases {
            let work = TemporaryFolder()
            let manifest = try work.write("jobs.jsonl", text)
            let r = try await CLITests.run(["batch", manifest])
            CLITests.expectCleanFailure(r, mentions: mentions)
            #expect(work.contents() == ["jobs.jsonl"], "\(text): left \(work.contents())")
        }
        let work = TemporaryFolder()
        let manifest = try Self.manifest(in: work)
        for (arguments, mention) in [(["--shard", "2/2"], "not in 0...1"), (["--shard", "1"], "I/N"), (["--workers", "0"], "at least 1"), (["--shards", "2"], "JOB_COMPLETION_INDEX")] {
            CLITests.expectCleanFailure(try await CLITests.run(["batch", manifest] + arguments), mentions: [mention])
        }
        // A manifest given relative to the working directory is never replaced by the summary.
        let nested = try work.write("sub/jobs.jsonl", try String(contentsOfFile: manifest, encoding: .utf8))
        let replacing = try await CLITests.run(["batch", "sub/jobs.jsonl", "--summary", "sub/jobs.jsonl"],
                                               wrapper: ["/usr/bin/env", "-C", work.path, try #require(CLITests.binary)])
        CLITests.expectCleanFailure(replacing, mentions: ["would replace the manifest"])
        #expect(try String(contentsOfFile: nested, encoding: .utf8) == String(contentsOfFile: manifest, encoding: .utf8))
        #expect(work.contents("sub") == ["jobs.jsonl"])
        try FileManager.default.removeItem(atPath: work.file("sub"))
        let k8s = try await CLITests.run(["batch", manifest], wrapper: ["/usr/bin/env", "JOB_COMPLETION_INDEX=0", try #require(CLITests.binary)])
        CLITests.expectCleanFailure(k8s, mentions: ["--shards"])
        #expect(work.contents() == ["jobs.jsonl"])
    }

    @Test func shardsSplitRoundRobin() throws {
        let shards = try (0..<3).map { try Shard(argument: "\($0)/3") }
        #expect((0..<7).map { k in shards.firstIndex { $0.contains(k) }! } == [0, 1, 2, 0, 1, 2, 0])
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 4) == Shard(argument: "2/4"))
        #expect(try Shard.fromEnvironment([:], count: nil) == nil)
        #expect(throws: BatchError.self) { try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil) }
    }
}
