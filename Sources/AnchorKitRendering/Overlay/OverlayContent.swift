import AnchorKit
/// What an overlay shows.
public enum OverlayContent: Sendable {
    /// A picture, painted with its alpha (BGRA) or opaque (gray, BGR).
    case picture(Image)
    /// A coloured card with an optional line of text centred on it; `aspectRatio` is its width
    /// over its height.
    case card(color: Color, label: String?, aspectRatio: Double)

    /// Width over height: the picture's, or the card's.
    public var aspectRatio: Double {
        switch self {
        case .picture(let image): return Double(image.width) / Double(image.height)
        case .card(_, _, let aspect): return aspect
        }
    }

    /// The longer side of a card's picture, pixels: sharp at any size an overlay is seen at in a
    /// 640x480–1280x720 frame (the renderer filters it down where it is smaller).
    static let cardResolution = 512.0

    /// The picture painted: the image itself, or the card drawn once.
    func texture() throws -> Image {
        switch self {
        case .picture(let image): return image
        case .card(let color, let label, let aspect):
            let w = aspect >= 1 ? Self.cardResolution : Self.cardResolution * aspect
            let h = aspect >= 1 ? Self.cardResolution / aspect : Self.cardResolution
            return try Image.card(width: max(1, Int(w.rounded())), height: max(1, Int(h.rounded())), color: color, label: label)
        }
    }
}
