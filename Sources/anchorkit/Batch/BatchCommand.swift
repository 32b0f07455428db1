import AnchorKit
import ArgumentParser
import Foundation

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Track (or render) many videos listed in a manifest, one video per worker; resumable, and shardable over a Slurm job array or a Kubernetes Indexed Job.",
        discussion: """
            MANIFEST is JSON Lines, one job per line: {"input": "clips/a.mp4", "output": "out/a.jsonl", "options": ["--camera", "phone.json", "--markers", "DICT_4X4_50:0.08"]} \
            (optional "command": "render"). Paths, in the options too, are relative to the manifest's folder. \
            A job whose output exists is skipped (outputs appear only when complete), so a batch that was stopped resumes where it was. \
            The summary (JSON) lists every job's status, frames and time.
            Example: anchorkit batch clips/manifest.jsonl --workers 2 --shard 0/2
            """)

    @Argument(help: "The manifest (.jsonl).")
    var manifest: String

    @Option(help: "Jobs run at once (default: one per core).")
    var workers: Int?

    @Option(help: "Run shard I of N (0-based): the jobs whose position in the manifest, modulo N, is I. Default: from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with --shards; else every job.")
    var shard: String?

    @Option(help: "The number of shards when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's completions).")
    var shards: Int?

    @Option(help: "Where to write the summary (default: beside the manifest, NAME.summary.json or NAME.shard-I-of-N.summary.json).")
    var summary: String?

    @Flag(help: "Run every job again, replacing outputs that exist.")
    var redo = false

    @Flag(help: "No line per finished job.")
    var quiet = false

    func run() throws {
        try reportingErrors {
            let manifest = try BatchManifest(contentsOf: self.manifest)
            let assigned = try self.shard == nil ? Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shards) : nil
            if shards != nil && self.shard == nil && assigned == nil {
                throw ValidationError("--shards needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or a Slurm array task; give --shard I/N otherwise")
            }
            let shard = try self.shard.map(Shard.init(argument:)) ?? assigned ?? .whole
            if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
            let summaryPath = summary ?? Self.defaultSummaryPath(manifest: manifest.path, shard: shard)
            func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
            let written = Set(manifest.jobs.map { manifest.resolve($0.output) } + [absolute(manifest.path)])
            if written.contains(absolute(summaryPath)) {
                throw InputError(summaryPath, "the summary would replace the manifest or a job's output: give another --summary")
            }
            let summaryFile = try AtomicFile(destination: summaryPath)  // checked writable before any job runs

            var toRun: [BatchJob] = [], skipped: [BatchJob] = []
            for (position, job) in manifest.jobs.enumerated() where shard.contains(position) {
                if !redo && manifest.isComplete(job) { skipped.append(job) } else { toRun.append(job) }
            }
            let workers = max(1, min(self.workers ?? ProcessInfo.processInfo.activeProcessorCount, toRun.count))
            let runner = BatchRunner(executable: try Self.executablePath(), manifest: manifest, workers: workers)
            let started = Date()
            var finishedCount = 0
            let ran = runner.run(toRun) { outcome in
                finishedCount += 1
                guard !quiet else { return }
                let what = outcome.status == .done
                    ? String(format: "%d frames in %.1f s", outcome.frames ?? 0, outcome.seconds)
                    : "FAILED: \(outcome.error ?? "")"
                FileHandle.standardError.write(Data("batch: [\(finishedCount)/\(toRun.count)] line \(outcome.line) \(outcome.input) -> \(outcome.output): \(what)\n".utf8))
            }
            let wall = Date().timeIntervalSince(started)
            let outcomes = (ran + skipped.map { BatchOutcome($0, .skipped) }).sorted { $0.line < $1.line }
            let report = BatchSummary(manifest: manifest.path, shard: shard.description, workers: workers, wallSeconds: wall,
                                      jobs: outcomes)
            try summaryFile.write(report.encoded())
            try summaryFile.commit()
            print(report.line + " -> \(summaryPath)")
            let failed = outcomes.filter { $0.status == .failed }
            guard failed.isEmpty else {
                for job in failed { print("batch: failed: line \(job.line) \(job.input): \(job.error ?? "")") }
                throw InputError(manifest.path, "\(failed.count) of \(outcomes.count) jobs failed (see \(summaryPath))")
            }
        }
    }

    static func defaultSummaryPath(manifest: String, shard: Shard) -> String {
        let url = URL(fileURLWithPath: manifest)
        let stem = url.deletingPathExtension().lastPathComponent
        let name = shard == .whole ? "\(stem).summary.json" : "\(stem).shard-\(shard.index)-of-\(shard.count).summary.json"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// This process's executable, which the jobs run.
    static func executablePath() throws -> String {
        let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        guard let path = path ?? Bundle.main.executablePath else {
            throw BatchError("cannot tell where the anchorkit executable is")
        }
        return path
    }
}

/// What a batch (or one shard of it) did: written as JSON, summed up in one line.
struct BatchSummary: Codable {
    let manifest: String
    /// "I/N"; "0/1" for the whole manifest.
    let shard: String
    let workers: Int
    let wallSeconds: Double
    /// Every job of the shard, in manifest order.
    let jobs: [BatchOutcome]

    func count(_ status: BatchOutcome.Status) -> Int { jobs.filter { $0.status == status }.count }

    var line: String {
        let frames = jobs.compactMap(\.frames).reduce(0, +)
        let part = shard == "0/1" ? "" : " (shard \(shard))"
        return "batch: \(jobs.count) jobs\(part): \(count(.done)) done, \(count(.skipped)) skipped, \(count(.failed)) failed; "
            + String(format: "%d frames in %.1f s on %d worker%@ (%.1f frames/s)", frames, wallSeconds, workers,
                     workers == 1 ? "" : "s", Double(frames) / max(wallSeconds, 1e-9))
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
