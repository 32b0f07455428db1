import AnchorKit
import ArgumentParser
import Foundation

/// `--no-overwrite`, shared by the commands that write a file or folder.
struct OverwriteOption: ParsableArguments {
    @Flag(help: "Refuse to replace an existing output (checked before any work).")
    var noOverwrite = false
}

/// SIGINT and SIGTERM: a batch's job processes are stopped, the run's partial files are removed,
/// then the process exits with status 128 + the signal's number.
enum Interruption {
    /// Blocks the two signals in every thread and waits for them on a thread of its own, where
    /// removing files is safe (a signal handler may only call async-signal-safe functions). Call
    /// it first in `main`: threads started later inherit the mask.
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waiting = signals
        Thread.detachNewThread {
            var set = waiting, signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { return }
            ChildProcesses.terminateAll()
            PartialFiles.removeAllBeforeExit()
            let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
            let endProgress = isatty(2) != 0 ? "\n" : ""  // a progress line may be half-drawn
            FileHandle.standardError.write(Data("\(endProgress)anchorkit: error: interrupted by \(name); partial output removed\n".utf8))
            _exit(128 + signal)
        }
    }
}
