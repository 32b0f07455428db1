/// The orientation of a plane: a plane anchor's (`ARPlaneAnchor.Alignment`, the anchor stream's
/// `alignment`), and which orientations a raycast accepts (`ARRaycastQuery.TargetAlignment`).
public enum PlaneAlignment: String, Codable, Sendable, CaseIterable {
    /// Normal along the world's +y or -y: floors, tables, ceilings.
    case horizontal
    /// Normal perpendicular to +y: walls.
    case vertical
    /// Slanted (a plane's), or either (a raycast's).
    case any
}
