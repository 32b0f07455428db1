import Foundation

/// A progress line on stderr for long runs: rewritten in place on a terminal, printed every
/// 10 % otherwise (so logs stay short).
final class ProgressLine {
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var lastDecile = -1
    private let isTerminal = isatty(2) != 0
    private let quiet: Bool

    init(_ label: String, quiet: Bool = false) {
        self.label = label
        self.quiet = quiet
    }

    /// Seconds since the line was made.
    var elapsed: Double { Date().timeIntervalSince(start) }

    func update(done: Int, total: Int?) {
        guard !quiet else { return }
        let rate = Double(done) / max(elapsed, 1e-9)
        let of = total.map { "/\($0)" } ?? ""
        let text = "\(label): frame \(done)\(of)  \(String(format: "%.1f", rate)) frames/s"
        if isTerminal {
            guard Date().timeIntervalSince(lastDraw) > 0.2 else { return }
            lastDraw = Date()
            FileHandle.standardError.write(Data("\r\(text)   ".utf8))
        } else if let total, total > 0 {
            let decile = 10 * done / total
            if decile > lastDecile, decile < 10 {
                lastDecile = decile
                FileHandle.standardError.write(Data("\(text)\n".utf8))
            }
        }
    }

    /// Clears the in-place line before the summary is printed.
    func finish() {
        if isTerminal && !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
