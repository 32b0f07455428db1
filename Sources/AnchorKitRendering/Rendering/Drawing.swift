import AnchorKitCV
import AnchorKitRender
import AnchorKit

/// A colour as 8-bit red, green, blue and alpha (straight, not premultiplied).
public struct Color: Equatable, Sendable {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (the `#` is optional); nil otherwise.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        let v = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(red: UInt8(v >> 24), green: UInt8(v >> 16 & 0xFF), blue: UInt8(v >> 8 & 0xFF), alpha: UInt8(v & 0xFF))
    }

    public static let red = Color(red: 230, green: 40, blue: 40)
    public static let green = Color(red: 40, green: 200, blue: 60)
    public static let blue = Color(red: 50, green: 110, blue: 255)
    public static let yellow = Color(red: 255, green: 215, blue: 0)
    public static let cyan = Color(red: 0, green: 220, blue: 230)
    public static let white = Color(red: 255, green: 255, blue: 255)

    var bgr: (UInt8, UInt8, UInt8) { (blue, green, red) }
}

/// An anti-aliased polyline in image pixels (a dot when it has one point).
public struct Stroke: Sendable {
    /// Image pixels, OpenCV's convention (pixel centres at integers).
    public var points: [SIMD2<Double>]
    /// Whether the last point joins the first.
    public var isClosed: Bool
    public var color: Color
    /// Line width (a dot's diameter), pixels.
    public var width: Double

    public init(points: [SIMD2<Double>], isClosed: Bool = false, color: Color, width: Double = 2) {
        self.points = points; self.isClosed = isClosed; self.color = color; self.width = width
    }
}

/// A line of text drawn over an image.
public struct TextLabel: Sendable {
    /// The left end of the baseline, image pixels.
    public var position: SIMD2<Double>
    /// Printable ASCII; every other character is drawn as one `?`.
    public var text: String
    public var color: Color
    /// Height of capitals, pixels.
    public var height: Double
    /// A dark box behind the text, so that it reads over any picture.
    public var hasBackdrop: Bool

    public init(_ text: String, at position: SIMD2<Double>, color: Color = .white, height: Double = 12, hasBackdrop: Bool = true) {
        self.text = text; self.position = position; self.color = color; self.height = height; self.hasBackdrop = hasBackdrop
    }
}

extension Image {
    /// A BGR copy with `strokes`, then `labels`, drawn over it (one call into the shim per image).
    public func drawing(_ strokes: [Stroke], labels: [TextLabel] = []) throws -> Image {
        let coordinates = strokes.flatMap { $0.points.flatMap { [$0.x, $0.y] } }
        return try coordinates.withUnsafeBufferPointer { buffer in
            var offset = 0
            let raw = strokes.map { s -> ak_stroke in
                defer { offset += 2 * s.points.count }
                return ak_stroke(points: buffer.baseAddress.map { $0 + offset }, count: Int32(s.points.count),
                                 closed: s.isClosed ? 1 : 0, bgr: s.color.bgr, thickness: s.width)
            }
            // All texts in one NUL-separated buffer that outlives the call.
            var text: [CChar] = [], starts: [Int] = []
            for label in labels {
                starts.append(text.count)
                text += label.text.utf8.map { CChar(bitPattern: $0 == 0 ? 63 : $0) } + [0]
            }
            return try text.withUnsafeBufferPointer { chars in
                let rawLabels = labels.indices.map { i in
                    ak_label(x: labels[i].position.x, y: labels[i].position.y, text: chars.baseAddress! + starts[i],
                             bgr: labels[i].color.bgr, height: labels[i].height, backdrop: labels[i].hasBackdrop ? 1 : 0)
                }
                return try Image.make("draw") { ak_image_draw(handle, raw, Int32(raw.count), rawLabels, Int32(rawLabels.count), $0) }
            }
        }
    }

    /// A `width` x `height` BGRA card filled with `color`, with `label` centred on it in black or
    /// white (whichever reads better), as large as fits.
    public static func card(width: Int, height: Int, color: Color, label: String?) throws -> Image {
        let bgra = [color.blue, color.green, color.red, color.alpha]
        return try bgra.withUnsafeBufferPointer { fill in
            try Image.make("card \(width)x\(height)") { ak_image_card(Int32(width), Int32(height), fill.baseAddress, label, $0) }
        }
    }
}
