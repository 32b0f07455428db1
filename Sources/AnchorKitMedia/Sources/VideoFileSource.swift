import AnchorKitCV
import Foundation
import AnchorKit

/// Frames decoded from a video file (mp4, mov, avi, ...) by OpenCV's FFmpeg back end.
///
/// A video that ends before the frame count its container states is reported as truncated or
/// corrupt rather than silently cut short.
public final class VideoFileSource: FrameSource {
    /// The file.
    public let path: String
    public let framesPerSecond: Double
    public let expectedFrameCount: Int?
    /// Frame size in pixels.
    public let width: Int, height: Int
    private let reader: OpaquePointer
    private var next = 0
    private var finished = false

    /// Opens a video. `framesPerSecond` overrides the container's rate (needed when it has none).
    public init(path: String, framesPerSecond: Double? = nil) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError(path, "no such file") }
        var handle: OpaquePointer?
        var info = ak_video_info()
        do {
            try NativeError.check(ak_video_reader_open(path, &handle, &info))
        } catch let e as NativeError {
            throw InputError(path, native: e)
        }
        reader = handle!
        self.path = path
        width = Int(info.width); height = Int(info.height)
        let fps = framesPerSecond ?? info.fps
        if let problem = Plausible.frameRateProblem(fps) {
            ak_video_reader_free(handle)
            throw InputError(path, framesPerSecond != nil ? problem
                             : fps > 0 ? "the video states an implausible frame rate (\(problem)); give one"
                             : "the video states no frame rate; give one")
        }
        if let problem = Plausible.frameSizeProblem(width: width, height: height) {
            ak_video_reader_free(handle)
            throw InputError(path, problem)
        }
        self.framesPerSecond = fps
        expectedFrameCount = info.frame_count > 0 ? Int(info.frame_count) : nil
    }

    deinit { ak_video_reader_free(reader) }

    public func nextFrame() throws -> Frame? {
        if finished { return nil }
        var out: OpaquePointer?
        let status: ak_status
        do {
            status = try NativeError.check(ak_video_reader_read(reader, &out))
        } catch let e as NativeError {
            throw InputError(path, "frame \(next): \(e.message)")
        }
        if status == AK_END_OF_STREAM {
            finished = true
            // Containers store an exact count (mp4's sample table, which a broken ctts or a cut
            // leaves in place): any frame short of it is a frame the user would silently lose.
            if let expected = expectedFrameCount, next < expected {
                throw InputError(path, "video is truncated or corrupt: decoded \(next) of \(expected) frames")
            }
            return nil
        }
        defer { next += 1 }
        return Frame(index: next, time: Double(next) / framesPerSecond, image: Image(taking: out!))
    }
}
