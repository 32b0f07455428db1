/// One captured camera frame: its pixels, its index in the recording and its time.
public struct Frame: Sendable {
    /// 0-based position in the recording.
    public let index: Int
    /// Capture time in seconds from the first frame.
    public let time: Double
    /// The pixels (BGR or gray).
    public let image: Image

    public init(index: Int, time: Double, image: Image) {
        self.index = index
        self.time = time
        self.image = image
    }
}
