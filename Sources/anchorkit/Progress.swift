import Foundation

/// A progress line on stderr for long runs: rewritten in place on a terminal, printed every
/// 10 % otherwise (so logs stay short). Each line gives the rate since the start and since the
/// line before, the CPU time a frame since the line before (all threads: unlike the rate, it
/// does not change with the machine's other load), and the memory resident now and at its peak:
/// a long video shows whether any of them drifts.
final class ProgressLine {
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var lastDecile = -1
    private var lastLine: (done: Int, time: Date, cpu: Double)?
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
        var text = "\(label): frame \(done)\(of)  \(String(format: "%.1f", rate)) frames/s"
        if isTerminal {
            guard Date().timeIntervalSince(lastDraw) > 0.2 else { return }
            lastDraw = Date()
            if let memory = Self.memory() { text += String(format: ", %.0f MB", memory.resident) }
            FileHandle.standardError.write(Data("\r\(text)   ".utf8))
        } else if let total, total > 0 {
            let decile = 10 * done / total
            if decile > lastDecile, decile < 10 {
                lastDecile = decile
                let now = Date(), cpu = Self.cpuSeconds(), since = lastLine ?? (0, start, 0)
                let recent = Double(done - since.done) / max(now.timeIntervalSince(since.time), 1e-9)
                let cpuPerFrame = 1000 * (cpu - since.cpu) / Double(max(done - since.done, 1))
                text += String(format: " (%.1f since the last line, %.1f ms CPU a frame)", recent, cpuPerFrame)
                if let memory = Self.memory() { text += String(format: ", %.0f MB resident, peak %.0f MB", memory.resident, memory.peak) }
                lastLine = (done, now, cpu)
                FileHandle.standardError.write(Data("\(text)\n".utf8))
            }
        }
    }

    /// User and system CPU time of the process so far, all threads, seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's resident memory now and at its peak, MB (Linux's /proc/self/status: VmRSS
    /// and VmHWM, in kB); nil where there is no such file.
    static func memory() -> (resident: Double, peak: Double)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func kilobytes(_ key: String) -> Double? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        guard let resident = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return (resident / 1024, peak / 1024)
    }

    /// A warning on its own stderr line (even when quiet), clearing an in-place progress line first.
    func warn(_ message: String) {
        if isTerminal && !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        FileHandle.standardError.write(Data("\(label): warning: \(message)\n".utf8))
    }

    /// Clears the in-place line before the summary is printed.
    func finish() {
        if isTerminal && !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
