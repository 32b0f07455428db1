import AnchorKit
import AnchorKitMedia
import Foundation

/// One job of a batch: a `track` (or `render`) run of one input into one output.
struct BatchJob: Equatable {
    enum Command: String, CaseIterable { case track, render }

    /// The manifest line it was read from (1-based).
    let line: Int
    let command: Command
    /// The input and output as the manifest gives them: relative paths are relative to the
    /// manifest's folder, where the job runs.
    let input: String
    let output: String
    /// The command's other arguments, as on its command line, e.g.
    /// `["--markers", "DICT_4X4_50:0.08", "--world"]`.
    let options: [String]

    /// The command line after the executable: the command, the input, the options, the output,
    /// and `--quiet` (a batch reports progress per job, not per frame).
    var arguments: [String] { [command.rawValue, input] + options + ["-o", output, "--quiet"] }
}

/// A batch manifest: JSON Lines, one job per line, e.g.
///
///     {"input": "clips/hall.mp4", "output": "out/hall.jsonl", "options": ["--camera", "phone.json", "--markers", "DICT_4X4_50:0.08"]}
///     {"input": "Datasets/room-walk", "output": "out/room-walk.jsonl", "options": ["--world"]}
///     {"command": "render", "input": "clips/hall.mp4", "output": "out/hall.mp4", "options": ["--camera", "phone.json", "--markers", "DICT_4X4_50:0.08", "--overlay", "7=#1e90ffcc:label=Hall"]}
///
/// Keys: `input` and `output` (required), `options` (an array of strings, the command's other
/// arguments), `command` (`track`, the default, or `render`). Every path, in the options too, is
/// relative to the manifest's folder. Blank lines are skipped. The jobs keep the manifest's order,
/// which also decides the shards (``Shard``).
struct BatchManifest {
    /// The manifest file, and the folder its jobs run in.
    let path: String
    let folder: String
    let jobs: [BatchJob]

    private static let keys: Set<String> = ["input", "output", "options", "command"]
    /// Arguments a job may not give: the batch sets the output and the progress line itself.
    private static let reserved: Set<String> = ["-o", "--output", "--quiet"]

    init(contentsOf path: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw InputError(path, FileManager.default.fileExists(atPath: path) ? "cannot read the manifest" : "no such manifest")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw InputError(path, "the manifest is not UTF-8 text") }
        self.path = path
        folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var jobs: [BatchJob] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { continue }
            jobs.append(try Self.job(from: line, number: offset + 1, path: path))
        }
        guard !jobs.isEmpty else { throw InputError(path, "the manifest lists no jobs (one JSON object per line)") }
        self.jobs = jobs
        try checkPaths()
    }

    private static func job(from line: String, number: Int, path manifest: String) throws -> BatchJob {
        func problem(_ text: String) -> InputError { InputError("\(manifest):\(number)", text) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw problem("not a JSON object")
        }
        if let unknown = object.keys.filter({ !keys.contains($0) }).sorted().first {
            throw problem("unknown key \"\(unknown)\" (keys: command, input, output, options)")
        }
        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String, !value.isEmpty else { throw problem("\"\(key)\" must be a non-empty string") }
            return value
        }
        let command: BatchJob.Command
        switch object["command"] {
        case nil: command = .track
        case let name as String:
            guard let c = BatchJob.Command(rawValue: name) else { throw problem("\"command\" must be track or render, not \"\(name)\"") }
            command = c
        default: throw problem("\"command\" must be track or render")
        }
        let options: [String]
        switch object["options"] {
        case nil: options = []
        case let list as [Any]:
            guard let strings = list as? [String] else { throw problem("\"options\" must be an array of strings") }
            options = strings
        default: throw problem("\"options\" must be an array of strings")
        }
        if let bad = options.first(where: { reserved.contains($0) || $0.hasPrefix("--output=") }) {
            throw problem("\"options\" may not give \(bad): the batch sets the output (\"output\") and the progress line")
        }
        return BatchJob(line: number, command: command, input: try string("input"), output: try string("output"), options: options)
    }

    /// The absolute, standardised form of a job's path.
    func resolve(_ path: String) -> String {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: folder).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }

    /// Whether `job`'s output is already complete. Outputs are renamed into place only when
    /// finished, so one that exists is whole.
    func isComplete(_ job: BatchJob) -> Bool {
        let output = resolve(job.output)
        if ImageFolderSource.isPattern(output) { return !ImageFolderSource.frames(of: output).isEmpty }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// No two jobs write one output, and no job writes what another reads.
    private func checkPaths() throws {
        var writers: [String: Int] = [:]
        for job in jobs {
            if let first = writers.updateValue(job.line, forKey: resolve(job.output)) {
                throw InputError("\(path):\(job.line)", "output \(job.output) is also line \(first)'s output")
            }
        }
        for job in jobs {
            if let writer = writers[resolve(job.input)] {
                throw InputError("\(path):\(job.line)", "input \(job.input) is line \(writer)'s output")
            }
        }
    }
}
