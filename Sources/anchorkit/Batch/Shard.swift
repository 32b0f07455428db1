import Foundation

/// The share of a manifest's jobs one process runs, so that a Slurm job array or a Kubernetes
/// Indexed Job spreads one manifest over many machines: job k (0-based, in manifest order) belongs
/// to shard k mod `count`. Round robin rather than blocks, so that long and short jobs listed
/// together spread evenly.
struct Shard: Equatable, CustomStringConvertible {
    /// 0-based, below `count`.
    let index: Int
    let count: Int

    static let whole = Shard(index: 0, count: 1)

    private init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `index` of `count`, checked.
    static func make(index: Int, count: Int, source: String) throws -> Shard {
        guard count >= 1 else { throw BatchError("\(source): the shard count must be at least 1, not \(count)") }
        guard (0..<count).contains(index) else {
            throw BatchError("\(source): shard \(index) is not in 0...\(count - 1)")
        }
        return Shard(index: index, count: count)
    }

    /// "I/N", e.g. "0/2".
    init(argument: String) throws {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw BatchError("--shard must be I/N (0-based index / count), e.g. 0/2, not \"\(argument)\"")
        }
        self = try Self.make(index: index, count: count, source: "--shard \(argument)")
    }

    /// The shard a cluster scheduler assigned through the environment, if any:
    /// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN` of
    ///   `SLURM_ARRAY_TASK_COUNT` (the array must be a contiguous range, e.g. `--array=0-7`);
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` of `count` (the Job's `completions`,
    ///   which Kubernetes does not put in the environment: `--shards N`).
    static func fromEnvironment(_ environment: [String: String], count: Int?) throws -> Shard? {
        func integer(_ key: String) throws -> Int? {
            guard let text = environment[key] else { return nil }
            guard let value = Int(text) else { throw BatchError("\(key) is not an integer: \"\(text)\"") }
            return value
        }
        if let task = try integer("SLURM_ARRAY_TASK_ID") {
            guard let tasks = try integer("SLURM_ARRAY_TASK_COUNT") else {
                throw BatchError("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT")
            }
            if let step = try integer("SLURM_ARRAY_TASK_STEP"), step != 1 {
                throw BatchError("a Slurm job array with step \(step): give a contiguous range such as --array=0-\(tasks - 1)")
            }
            let first = try integer("SLURM_ARRAY_TASK_MIN") ?? 0
            if let count, count != tasks {
                throw BatchError("--shards \(count) disagrees with SLURM_ARRAY_TASK_COUNT \(tasks)")
            }
            return try make(index: task - first, count: tasks, source: "SLURM_ARRAY_TASK_ID \(task) (first \(first))")
        }
        if let index = try integer("JOB_COMPLETION_INDEX") {
            guard let count else {
                throw BatchError("JOB_COMPLETION_INDEX is set: give --shards N, the Job's completions")
            }
            return try make(index: index, count: count, source: "JOB_COMPLETION_INDEX \(index)")
        }
        return nil
    }

    /// Whether the job at `position` (0-based, in manifest order) is this shard's.
    func contains(_ position: Int) -> Bool { position % count == index }

    var description: String { "\(index)/\(count)" }
}

/// A batch's own errors (shards, the executable, an interrupted start), one line each.
struct BatchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
