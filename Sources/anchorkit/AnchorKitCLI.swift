import AnchorKit
import ArgumentParser
import Foundation

@main
struct AnchorKitCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anchorkit",
        abstract: "Find markers, reference images and planes in recorded video, estimate their 6-DoF poses, composite overlays on them, and score them against ground truth.",
        version: AnchorKitCLI.version,
        subcommands: [TrackCommand.self, RenderCommand.self, RaycastCommand.self, ScoreCommand.self, PlotCommand.self, SynthCommand.self, CheckImageCommand.self, ReferenceDatabaseCommand.self, BatchCommand.self, BenchCommand.self])

    /// This tool's version (`anchorkit --version`).
    static let version = "0.9.0"

    static func main() {
        // FFmpeg and OpenCV log decoding trouble to stderr on their own; the tool reports every
        // failure itself in one line, so their chatter is silenced (before their first use).
        setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0)
        setenv("OPENCV_LOG_LEVEL", "ERROR", 0)
        Interruption.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let e as ExitCode {
            exit(withError: e)  // the error line is already printed
        } catch {
            // Help and version requests print as ArgumentParser does; every error (usage ones
            // included, which it would end with status 64 and a usage text) is one line, status 1.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            let line = message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            FileHandle.standardError.write(Data("anchorkit: error: \(line)\n".utf8))
            exit(withError: ExitCode.failure)
        }
    }
}

/// Runs a command body; any error becomes one line on stderr and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        throw e
    } catch {
        FileHandle.standardError.write(Data("anchorkit: error: \(describe(error))\n".utf8))
        throw ExitCode.failure
    }
}
