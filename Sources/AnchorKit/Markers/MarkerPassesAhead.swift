import Dispatch

/// A pass over a whole frame: the whole frame at full resolution, or at 1 / `decimation` of it.
enum MarkerPass: Equatable {
    case full
    case coarse(decimation: Double)

    /// This pass by `detector` over `image`.
    func run(_ detector: MarkerDetector, on image: Image) throws -> [MarkerDetection] {
        switch self {
        case .full: return try detector.detect(in: image)
        case .coarse(let decimation):
            return try detector.detect(in: image, region: (0, 0, image.width, image.height), scale: 1 / decimation)
        }
    }
}

/// Whole-frame marker passes (full or coarse) run ahead of the tracker, on another core, for frames
/// it will process later (see ``MarkerTracker/anticipate(_:)``). A pass depends on its frame alone and runs on
/// detectors of its own made with the same parameters, so the tracker gets the detections it
/// would have computed itself, whatever the threads' timing: the stream stays byte-identical.
///
/// Not thread-safe: one caller (the tracker's) holds frames, starts and takes passes; only the
/// passes themselves run on the background queue.
final class MarkerPassesAhead {
    /// One pass: its detections per detector, posted once by the queue.
    private final class Pass: @unchecked Sendable {
        let kind: MarkerPass
        init(_ kind: MarkerPass) { self.kind = kind }
        let done = DispatchGroup()
        var cancelled = false
        var result: Result<[[MarkerDetection]], Error> = .success([])
    }

    /// The detectors' box, for the background queue: only that queue uses them once made.
    private final class Detectors: @unchecked Sendable {
        let all: [MarkerDetector]
        init(_ all: [MarkerDetector]) { self.all = all }
    }

    private let detectors: Detectors
    private let queue = DispatchQueue(label: "AnchorKit marker passes ahead", qos: .userInitiated)
    /// Frames handed ahead and not yet processed, by index.
    private var frames: [Int: Frame] = [:]
    private var passes: [Int: Pass] = [:]
    private var passesStarted = 0

    /// Passes ahead with `detectors` (one per dictionary, in the tracker's order; used by nothing else).
    init(detectors: [MarkerDetector]) { self.detectors = Detectors(detectors) }

    deinit {
        for pass in passes.values { pass.cancelled = true }
    }

    /// Keeps `frame` until it is processed, for a pass that may be asked for later.
    func hold(_ frame: Frame) { frames[frame.index] = frame }

    /// The indices of the frames held, in order.
    var heldFrames: [Int] { frames.keys.sorted() }

    /// Starts a pass of `kind` over frame `index` if the frame is held and no such pass was started
    /// (one of another kind is dropped).
    func start(_ index: Int, _ kind: MarkerPass) {
        guard passes[index]?.kind != kind, let frame = frames[index] else { return }
        passes[index]?.cancelled = true
        let pass = Pass(kind), detectors = self.detectors
        pass.done.enter()
        queue.async {
            defer { pass.done.leave() }
            guard !pass.cancelled else { return }
            pass.result = Result { try detectors.all.map { try kind.run($0, on: frame.gray()) } }
        }
        passes[index] = pass
        passesStarted += 1
    }

    /// The detections of frame `index`'s pass of `kind`, per detector, waiting for it if it is
    /// still running; nil when no such pass was started.
    func take(_ index: Int, _ kind: MarkerPass) throws -> [[MarkerDetection]]? {
        guard let pass = passes.removeValue(forKey: index) else { return nil }
        guard pass.kind == kind else { pass.cancelled = true; return nil }
        pass.done.wait()
        return try pass.result.get()
    }

    /// Forgets frames up to `index` (processed) and drops their passes, which the schedule skipped.
    func forget(through index: Int) {
        for key in frames.keys where key <= index { frames[key] = nil }
        for (key, pass) in passes where key <= index {
            pass.cancelled = true
            passes[key] = nil
        }
    }

    /// The passes' time (all of their detectors' stages), once none is running.
    var profile: StageProfile {
        queue.sync {}
        let detectors = self.detectors.all.reduce(StageProfile()) { $0.merged(with: $1.profile) }
        var profile = StageProfile()
        profile.add(.markerPassesAhead, seconds: detectors.seconds.reduce(0, +), calls: passesStarted)
        return profile
    }
}
