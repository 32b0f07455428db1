import Foundation

/// One captured camera frame: its pixels, its index in the recording and its time.
public struct Frame: Sendable {
    /// 0-based position in the recording.
    public let index: Int
    /// Capture time in seconds from the first frame.
    public let time: Double
    /// The pixels (BGR or gray).
    public let image: Image
    /// Images derived from the pixels, shared by copies of this frame.
    private let derivatives = Derivatives()

    public init(index: Int, time: Double, image: Image) {
        self.index = index
        self.time = time
        self.image = image
    }

    /// The frame in gray (one channel), converted once however many trackers ask for it.
    public func gray() throws -> Image {
        try derived("gray") { try image.converted(toChannels: 1) }
    }

    /// A value computed from the frame's pixels once, under `key`, and then shared: several
    /// trackers that look at the same frame need the same gray copy and flow pyramid.
    func derived<T>(_ key: String, _ make: () throws -> T) rethrows -> T {
        try derivatives.value(key, make)
    }

    private final class Derivatives: @unchecked Sendable {
        // Recursive: a derived value may be made from another (a pyramid from the gray copy).
        private let lock = NSRecursiveLock()
        private var values: [String: Any] = [:]

        func value<T>(_ key: String, _ make: () throws -> T) rethrows -> T {
            lock.lock(); defer { lock.unlock() }
            if let v = values[key] as? T { return v }
            let v = try make()
            values[key] = v
            return v
        }
    }
}
