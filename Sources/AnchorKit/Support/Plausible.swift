/// The ranges inside which AnchorKit believes the numbers of an input file or argument.
///
/// A value outside them (a 1e300 m marker, a frame rate of 1e-320, a focal length of 1e-300
/// pixels) is a typo or a corrupt file, and accepting it would only give silently wrong poses
/// or a crash far from the cause; each check returns a one-line problem for the caller to
/// attach to the file it read.
package enum Plausible {
    /// Printed sizes of markers and reference images, metres: a 0.1 mm dot to a 1 km billboard.
    public static let physicalSize: ClosedRange<Double> = 1e-4...1e3
    /// Frame rates, frames per second: a time-lapse frame every 16 minutes to a high-speed camera.
    public static let framesPerSecond: ClosedRange<Double> = 1e-3...1e4
    /// Focal lengths in pixels as a multiple of the image's larger side (a 179.4° to a 0.06°
    /// field of view).
    public static let focalLengthPerSide: ClosedRange<Double> = 1e-2...1e3
    /// The largest magnitude of a distortion coefficient: real lenses stay far below it.
    public static let distortionMagnitude = 1e4
    /// The smallest frame side tracked in, pixels: detectors need room for their pyramids and
    /// windows (smaller frames end in OpenCV assertions).
    public static let minimumFrameSide = 32

    /// The problem with a printed size `metres` of `what` (e.g. `marker size`), or nil.
    public static func physicalSizeProblem(_ metres: Double, of what: String) -> String? {
        physicalSize.contains(metres) ? nil
            : "\(what) must be \(physicalSize.lowerBound)...\(physicalSize.upperBound) metres, got \(metres)"
    }

    /// The problem with a frame rate, or nil.
    public static func frameRateProblem(_ fps: Double) -> String? {
        framesPerSecond.contains(fps) ? nil
            : "frames per second must be \(framesPerSecond.lowerBound)...\(framesPerSecond.upperBound), got \(fps)"
    }

    /// The problem with frames of `width` x `height` pixels, or nil.
    public static func frameSizeProblem(width: Int, height: Int) -> String? {
        min(width, height) >= minimumFrameSide ? nil
            : "frames of \(width)x\(height) pixels are too small to track in (at least \(minimumFrameSide) a side)"
    }
}
