import AnchorKit
import Foundation

/// How one job ended.
struct BatchOutcome: Codable, Equatable {
    enum Status: String, Codable { case done, skipped, failed }

    let line: Int
    let command: String
    let input: String
    let output: String
    let status: Status
    /// Frames the job processed, from its summary line (nil when skipped or failed).
    let frames: Int?
    /// The job's wall time, process start-up included, seconds.
    let seconds: Double
    /// The job's one-line error when it failed.
    let error: String?

    init(_ job: BatchJob, _ status: Status, frames: Int? = nil, seconds: Double = 0, error: String? = nil) {
        (line, command, input, output) = (job.line, job.command.rawValue, job.input, job.output)
        (self.status, self.frames, self.seconds, self.error) = (status, frames, seconds, error)
    }
}

/// Runs a batch's jobs, one video per worker: each job is its own `anchorkit` process (a job that
/// fails or runs out of memory takes no other down, and each video's memory is returned when it
/// ends), started in the manifest's folder. Jobs are taken in manifest order as workers free up.
struct BatchRunner {
    /// The `anchorkit` executable the jobs run.
    let executable: String
    /// The manifest, in whose folder the jobs run.
    let manifest: BatchManifest
    let workers: Int

    /// Runs `jobs`, calling `finished` (serially, from the workers' threads) as each ends;
    /// returns the outcomes in the order of `jobs`.
    func run(_ jobs: [BatchJob], finished: (BatchOutcome) -> Void) -> [BatchOutcome] {
        let lock = NSLock()
        var next = 0
        var outcomes = [BatchOutcome?](repeating: nil, count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, jobs.count))) { _ in
            while true {
                lock.lock()
                let k = next
                next += 1
                lock.unlock()
                guard k < jobs.count else { return }
                let outcome = run(jobs[k])
                lock.lock()
                outcomes[k] = outcome
                finished(outcome)
                lock.unlock()
            }
        }
        return outcomes.map { $0! }
    }

    private func run(_ job: BatchJob) -> BatchOutcome {
        let started = Date()
        func outcome(_ status: BatchOutcome.Status, frames: Int? = nil, error: String? = nil) -> BatchOutcome {
            BatchOutcome(job, status, frames: frames, seconds: Date().timeIntervalSince(started), error: error)
        }
        // Outputs may go to folders that do not exist yet (out/<clip>.jsonl).
        let outputFolder = URL(fileURLWithPath: manifest.resolve(job.output)).deletingLastPathComponent()
        do { try FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true) } catch {
            return outcome(.failed, error: "\(outputFolder.path): cannot create the output folder")
        }
        // The child's output goes to files: pipes would need reading while it runs.
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("anchorkit-batch-\(getpid())-\(job.line)")
        try? FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let out = logs.appendingPathComponent("stdout"), err = logs.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
              FileManager.default.createFile(atPath: err.path, contents: nil),
              let outHandle = try? FileHandle(forWritingTo: out), let errHandle = try? FileHandle(forWritingTo: err) else {
            return outcome(.failed, error: "cannot create log files in \(logs.path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = job.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: manifest.folder)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        do {
            try ChildProcesses.start(process)
        } catch {
            return outcome(.failed, error: "cannot start \(executable): \(describe(error))")
        }
        process.waitUntilExit()
        ChildProcesses.ended(process)
        try? outHandle.close()
        try? errHandle.close()
        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let said = stderr.split(separator: "\n").last(where: { $0.hasPrefix("anchorkit: error: ") })
                .map { String($0.dropFirst("anchorkit: error: ".count)) }
            let how = process.terminationReason == .exit ? "exit status \(process.terminationStatus)"
                : "killed by signal \(process.terminationStatus)"
            return outcome(.failed, error: said ?? how)
        }
        return outcome(.done, frames: Self.frames(inSummary: stdout, command: job.command))
    }

    /// The frame count of a `track:` or `render:` summary line ("track: 120 frames, ...").
    static func frames(inSummary stdout: String, command: BatchJob.Command) -> Int? {
        let prefix = command.rawValue + ": "
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let words = line.dropFirst(prefix.count).split(separator: " ")
        guard words.count >= 2, words[1].hasPrefix("frames") else { return nil }
        return Int(words[0])
    }
}

/// The job processes running now, so that an interrupted batch stops them (each removes its own
/// partial output) before it exits: a Kubernetes pod's SIGTERM reaches only the batch.
enum ChildProcesses {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var running: [ObjectIdentifier: Process] = [:]
    nonisolated(unsafe) private static var stopping = false

    /// Starts `process` unless the batch is being interrupted.
    static func start(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { throw BatchError("interrupted") }
        try process.run()
        running[ObjectIdentifier(process)] = process
    }

    static func ended(_ process: Process) {
        lock.lock()
        running[ObjectIdentifier(process)] = nil
        lock.unlock()
    }

    /// Sends SIGTERM to every job process and waits (up to `timeout` seconds) for them to end.
    static func terminateAll(timeout: Double = 10) {
        lock.lock()
        stopping = true
        let pids = running.values.map(\.processIdentifier)
        lock.unlock()
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        // kill(pid, 0) succeeds until the child is reaped (by Foundation's waiting thread).
        while Date() < deadline, pids.contains(where: { kill($0, 0) == 0 }) { usleep(10_000) }
    }
}
