/// How a display shows the captured image (UIInterfaceOrientation, as ARCamera's view and
/// projection matrices take it).
///
/// The captured image is landscape-right: its pixel rows are the display's rows when the device
/// is held in landscape with the home side on the right. Any other orientation shows the image
/// rotated by ``clockwiseRotation`` so that it stays level with the horizon.
public enum InterfaceOrientation: String, Codable, Sendable, CaseIterable {
    case landscapeRight, portrait, landscapeLeft, portraitUpsideDown

    /// Clockwise rotation of the captured image on the display, in quarter turns (0...3):
    /// landscapeRight 0, portrait 1, landscapeLeft 2, portraitUpsideDown 3 (ARKit's
    /// `viewRotationAngle` of 0°, 90°, 180°, 270°).
    public var clockwiseRotation: Int {
        switch self {
        case .landscapeRight: return 0
        case .portrait: return 1
        case .landscapeLeft: return 2
        case .portraitUpsideDown: return 3
        }
    }

    /// `display_from_camera`: the camera's axes (ARKit convention: +x along the image's rows,
    /// +y up the image, looking along -z) turned about z so that +x is the display's right and
    /// +y its up. Rotating the image clockwise by θ turns camera x toward display -y:
    /// x_d = cos θ · x + sin θ · y, y_d = -sin θ · x + cos θ · y.
    public var displayFromCamera: Transform {
        let (c, s): (Double, Double) = [(1, 0), (0, 1), (-1, 0), (0, -1)][clockwiseRotation]
        return Transform(rotation: Matrix3(rows: SIMD3(c, s, 0), SIMD3(-s, c, 0), SIMD3(0, 0, 1)), translation: .zero)
    }
}
