import AnchorKitCV
import Foundation
import AnchorKit

/// Writes frames to a video file (mp4 by default, through OpenCV's FFmpeg back end). The file is
/// written under a temporary name and renamed into place by ``finish()``, so a failed run
/// leaves nothing behind.
public final class VideoFileWriter {
    /// Where the video ends up.
    public let path: String
    private let temporaryPath: String
    private var writer: OpaquePointer?

    /// Opens a writer for `width` x `height` frames at `framesPerSecond`. `codec` is a FourCC
    /// ("avc1" for H.264, "mp4v" for MPEG-4 part 2).
    public init(path: String, width: Int, height: Int, framesPerSecond: Double, codec: String = "avc1") throws {
        _ = try OutputFolder.of(path, reportedAs: path)
        self.path = path
        temporaryPath = OutputFolder.partialPath(for: path)
        let temporaryPath = self.temporaryPath
        writer = try PartialFiles.create(temporaryPath) {
            var out: OpaquePointer?
            do {
                try NativeError.check(ak_video_writer_open(temporaryPath, Int32(width), Int32(height), framesPerSecond, codec, &out))
            } catch let e as NativeError {
                throw InputError(path, native: e)
            }
            return out
        }
    }

    deinit { discard() }

    /// Appends a frame (gray or BGR, of the size given at opening).
    public func write(_ image: Image) throws {
        guard let writer else { throw InputError(path, "video already finished") }
        do { try NativeError.check(ak_video_writer_write(writer, image.handle)) } catch let e as NativeError {
            throw InputError(path, native: e)
        }
    }

    /// Completes the file and moves it into place (replacing a regular file, never a folder).
    public func finish() throws {
        guard let w = writer else { return }
        writer = nil
        do {
            do { try NativeError.check(ak_video_writer_close(w)) } catch let e as NativeError { throw InputError(path, native: e) }
            try PartialFiles.commit([(temporaryPath, path)])
        } catch {
            PartialFiles.remove([temporaryPath])
            throw error
        }
    }

    /// Drops the partial output.
    public func discard() {
        if let w = writer { _ = ak_video_writer_close(w); writer = nil }
        PartialFiles.remove([temporaryPath])
    }
}
