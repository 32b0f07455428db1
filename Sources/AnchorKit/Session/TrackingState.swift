/// How far the camera's pose can be trusted (ARCamera.TrackingState).
public enum TrackingState: Equatable, Sendable {
    /// Why tracking is limited (ARCamera.TrackingState.Reason).
    public enum Reason: String, Codable, Sendable {
        case initializing, excessiveMotion, insufficientFeatures, lowLight, relocalizing
    }

    /// No pose is available.
    case notAvailable
    /// A pose is available but of questionable quality.
    case limited(Reason)
    /// The pose is good.
    case normal

    /// The stream's `tracking` value.
    public var name: String {
        switch self {
        case .notAvailable: return "notAvailable"
        case .limited: return "limited"
        case .normal: return "normal"
        }
    }

    /// The stream's `reason` value, if any.
    public var reason: Reason? {
        if case .limited(let r) = self { return r }
        return nil
    }
}
