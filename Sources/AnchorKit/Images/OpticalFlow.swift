import AnchorKitCV

/// An image pyramid for pyramidal Lucas–Kanade optical flow, built once per frame and reused
/// by every target tracked in it.
package final class FlowPyramid: @unchecked Sendable {
    let handle: OpaquePointer

    /// Builds the pyramid of `image` for a `window`-pixel search window and `levels` levels.
    public init(image: Image, window: Int = 21, levels: Int = 3) throws {
        var out: OpaquePointer?
        try NativeError.check(ak_flow_pyramid_build(image.handle, Int32(window), Int32(levels), &out), "flow pyramid")
        handle = out!
    }

    deinit { ak_flow_pyramid_free(handle) }

    /// Follows `points` from this frame into `next`; nil where a point was lost (including
    /// points whose forward-backward check fails).
    public func track(_ points: [SIMD2<Float>], into next: FlowPyramid, guesses: [SIMD2<Float>]? = nil) throws -> [SIMD2<Float>?] {
        guard !points.isEmpty else { return [] }
        let flat = points.flatMap { [$0.x, $0.y] }
        var tracked = (guesses ?? points).flatMap { [$0.x, $0.y] }
        var status = [UInt8](repeating: 0, count: points.count)
        var error = [Float](repeating: 0, count: points.count)
        try NativeError.check(ak_flow_track(handle, next.handle, flat, Int32(points.count), &tracked, guesses == nil ? 0 : 1,
                                            &status, &error), "optical flow")
        return points.indices.map { status[$0] != 0 ? SIMD2(tracked[2 * $0], tracked[2 * $0 + 1]) : nil }
    }
}

extension Frame {
    /// The flow pyramid of this frame's gray copy, built once for every tracker that follows
    /// points into or out of it.
    package func flowPyramid(window: Int = 21, levels: Int = 3) throws -> FlowPyramid {
        try derived("flow pyramid \(window) \(levels)") { try FlowPyramid(image: gray(), window: window, levels: levels) }
    }
}
