#if canImport(Glibc)
import Glibc
#endif

/// The QR codes (and other 2-D codes) to track, by their printed size: a code is anchored only
/// when its size is known, since its pose comes from it. The first pattern its payload matches
/// gives the size, else ``defaultSize``; a code that has neither is not reported.
public struct QRCodeSet: Sendable, Equatable {
    /// A printed size for the codes whose payload matches a pattern.
    public struct PayloadSize: Sendable, Equatable {
        /// A shell pattern (`*`, `?`, `[...]`; `\` escapes) matched against the whole payload as a
        /// stream writes it (text, or base64 for bytes).
        public var pattern: String
        /// The side of the code's square, finder patterns included, quiet zone excluded, metres.
        public var size: Double

        public init(pattern: String, size: Double) { self.pattern = pattern; self.size = size }

        /// A size for exactly `payload` (its pattern's special characters escaped).
        public init(payload: CodePayload, size: Double) {
            var escaped = ""
            for c in payload.streamValue {
                if "*?[]\\".contains(c) { escaped.append("\\") }
                escaped.append(c)
            }
            self.init(pattern: escaped, size: size)
        }

        /// Parses the command line's `PATTERN=SIZE_METRES` (e.g. `https://example.org/*=0.05`): the
        /// size follows the last `=`.
        public init(argument: String) throws {
            guard let equals = argument.lastIndex(of: "="), let size = Double(argument[argument.index(after: equals)...]) else {
                throw MarkerError("QR size \"\(argument)\": expected PATTERN=SIZE_METRES, e.g. 'https://example.org/*=0.05'")
            }
            if let problem = Plausible.physicalSizeProblem(size, of: "QR code size") { throw MarkerError("QR size \"\(argument)\": \(problem)") }
            self.init(pattern: String(argument[..<equals]), size: size)
        }

        func matches(_ payload: CodePayload) -> Bool {
            fnmatch(pattern, payload.streamValue, 0) == 0
        }
    }

    /// The size of codes that match no pattern, metres; nil: those are not reported.
    public var defaultSize: Double?
    /// Sizes by payload, the first match winning.
    public var sizes: [PayloadSize]

    public init(defaultSize: Double? = nil, sizes: [PayloadSize] = []) {
        self.defaultSize = defaultSize; self.sizes = sizes
    }

    /// The printed size of a code holding `payload`, metres; nil when none is known.
    public func size(for payload: CodePayload) -> Double? {
        sizes.first { $0.matches(payload) }?.size ?? defaultSize
    }

    /// A description of the first implausible size, or nil.
    func sizeProblem() -> String? {
        if let d = defaultSize, let problem = Plausible.physicalSizeProblem(d, of: "QR code size") { return problem }
        for s in sizes { if let problem = Plausible.physicalSizeProblem(s.size, of: "QR code size \(s.pattern)") { return problem } }
        return nil
    }
}
