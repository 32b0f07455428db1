import AnchorKitCV
import AnchorKitSolvers

/// A reference picture prepared for fast, repeated alignment to frames: sparse
/// inverse-compositional Lucas–Kanade on its strongest-gradient pixels, with a gain-and-offset
/// brightness model and Huber weights against occluders.
///
/// Made once per reference pyramid level and reused every frame; each alignment costs a few
/// thousand bilinear samples per iteration, where ECC re-differentiates the frame.
package final class TemplateAligner: @unchecked Sendable {
    let handle: OpaquePointer
    /// The picture's size, pixels.
    public let width: Int, height: Int

    /// Prepares `reference` (gray or colour) keeping at most `maximumSamples` pixels.
    public init(reference: Image, maximumSamples: Int = 3000) throws {
        var out: OpaquePointer?
        try NativeError.check(ak_aligner_create(reference.handle, Int32(maximumSamples), &out), "aligner")
        handle = out!
        width = reference.width
        height = reference.height
    }

    deinit { ak_aligner_free(handle) }

    /// Refines `matrix` (this picture's pixels → `image` pixels, pixel centres at integers).
    /// Returns the refined matrix with the correlation (−1…1) of the samples in view that agree
    /// with it (not occluded: residual under 4.685 robust sigmas) and the share of all samples
    /// they make up (0…1), or nil when the alignment fails (too little in view, degenerate).
    public func align(_ matrix: Matrix3, to image: Image, iterations: Int = 10, epsilon: Double = 0.01) throws
        -> (matrix: Matrix3, correlation: Double, coverage: Double)? {
        var h = matrix.rowMajor
        var correlation = 0.0, coverage = 0.0
        try NativeError.check(ak_aligner_align(handle, image.handle, &h, Int32(iterations), epsilon, &correlation, &coverage),
                              "alignment")
        return correlation < -1 ? nil : (Matrix3(rowMajor: h), correlation, coverage)
    }
}
