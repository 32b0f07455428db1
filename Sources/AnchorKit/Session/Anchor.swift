/// Something tracked in the world: a printed marker, a QR code, a reference image or a plane (ARAnchor).
///
/// Serialises to one entry of an anchor-stream line (../shared/FORMATS.md).
public struct Anchor: Equatable, Sendable {
    /// What kind of target an anchor stands for.
    public enum Kind: String, Codable, Sendable {
        case image, marker, plane
        /// A QR code (or another 2-D code: Micro QR, Data Matrix, Aztec) with its payload.
        case qr
        /// A place given by coordinate (``GeoAnchor``), placed by geo tracking.
        case geo
    }

    /// Stable id across frames: `marker/<dictionary>/<id>` (`.../<id>/<instance>` for a further
    /// physical marker printing the same id, see ``markerIdentifier(dictionary:id:instance:)``),
    /// `image/<name>`, `plane/<n>`, `qr/<payload digest>` (`.../<instance>` for a further code with
    /// the same payload, see ``qrIdentifier(payload:instance:)``).
    public var identifier: String
    /// The anchor's kind.
    public var kind: Kind
    /// The marker id (as text) or the reference image's name.
    public var name: String?
    /// Markers and codes: which of the physical markers printing the same id (codes holding the
    /// same payload) this is (1, 2, ... in the order they were first seen); nil for the first
    /// (instance 0), so single markers read as before.
    public var instance: Int?
    /// QR codes: what the code holds (stream keys `payload` and, for bytes, `payloadEncoding`).
    public var payload: CodePayload?
    /// Codes other than QR: their symbology (stream key `format`); nil for QR codes and other anchors.
    public var codeFormat: CodeFormat?
    /// True when the target was seen in this frame; false keeps its last pose.
    public var isTracked: Bool
    /// `world_from_anchor`. Image and marker anchors: origin at the target's centre, +x toward
    /// its right edge, +y out of the printed face, +z toward its bottom edge. Plane anchors:
    /// +y along the normal.
    public var transform: Transform
    /// Physical size in metres: width along x, height (or depth) along z.
    public var extent: SIMD2<Double>
    /// Image and marker anchors: the target's corners in this frame's pixels (TL, TR, BR, BL as
    /// in the reference image / the dictionary's canonical orientation).
    public var corners: [SIMD2<Double>]?
    /// Plane anchors: `horizontal` or `vertical`.
    public var alignment: PlaneAlignment?
    /// Plane anchors: the boundary in the anchor's x-z plane, metres.
    public var polygon: [SIMD2<Double>]?
    /// Ground truth only: the fraction of the target's area in the frame and not occluded.
    public var visible: Double?
    /// Ground truth only (planes): the share of the image the plane covers.
    public var coverage: Double?
    /// World tracking only (markers and images): whether the anchor is placed — its world
    /// position fused from enough views to lock content to. Before, `transform` is this frame's
    /// single view (right relative to the camera, not yet still in the world). Nil without
    /// world tracking.
    public var isPlaced: Bool?
    /// Geo anchors: the place's coordinate (stream keys `latitude`, `longitude`, `altitude`).
    public var coordinate: GeoCoordinate?
    /// Geo anchors: how far (metres, 1 σ, horizontally) the place may be from where `transform`
    /// puts it (stream key `horizontalAccuracy`).
    public var geoAccuracy: Double?

    public init(identifier: String, kind: Kind, name: String? = nil, isTracked: Bool, transform: Transform,
                extent: SIMD2<Double>, corners: [SIMD2<Double>]? = nil, alignment: PlaneAlignment? = nil,
                polygon: [SIMD2<Double>]? = nil, visible: Double? = nil, coverage: Double? = nil) {
        self.identifier = identifier; self.kind = kind; self.name = name; self.isTracked = isTracked
        self.transform = transform; self.extent = extent; self.corners = corners
        self.alignment = alignment; self.polygon = polygon; self.visible = visible; self.coverage = coverage
    }

    /// The id of a marker anchor: `marker/<dictionary>/<id>` for instance 0 (the first physical
    /// marker with that id), `marker/<dictionary>/<id>/<instance>` for the others.
    public static func markerIdentifier(dictionary: String, id: Int, instance: Int = 0) -> String {
        instance == 0 ? "marker/\(dictionary)/\(id)" : "marker/\(dictionary)/\(id)/\(instance)"
    }

    /// The id of a QR code's anchor: `qr/<digest>` (``CodePayload/digest``) for the first code
    /// holding `payload`, `qr/<digest>/<instance>` for the others.
    public static func qrIdentifier(payload: CodePayload, instance: Int = 0) -> String {
        instance == 0 ? "qr/\(payload.digest)" : "qr/\(payload.digest)/\(instance)"
    }

    /// The dictionary and id of a marker anchor, read back from its identifier (see
    /// ``markerIdentifier(dictionary:id:instance:)``); nil for other anchors.
    public var markerCode: (dictionary: String, id: Int)? {
        kind == .marker ? Self.markerCode(of: identifier) : nil
    }

    /// The dictionary and id in a marker identifier (``markerIdentifier(dictionary:id:instance:)``);
    /// nil for any other string.
    public static func markerCode(of identifier: String) -> (dictionary: String, id: Int)? {
        let parts = identifier.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 || (parts.count == 4 && Int(parts[3]) != nil), parts[0] == "marker",
              let id = Int(parts[2]) else { return nil }
        return (String(parts[1]), id)
    }
}

extension Anchor: Codable {
    enum CodingKeys: String, CodingKey {
        case identifier = "id", kind = "type", name, instance, isTracked = "tracked", transform, extent, corners
        case alignment, polygon, visible, coverage, isPlaced = "placed"
        case payload, payloadEncoding, codeFormat = "format"
        case latitude, longitude, altitude, geoAccuracy = "horizontalAccuracy"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        kind = try c.decode(Kind.self, forKey: .kind)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        instance = try c.decodeIfPresent(Int.self, forKey: .instance)
        if let instance, instance < 0 {
            throw DecodingError.dataCorruptedError(forKey: .instance, in: c, debugDescription: "instance must be >= 0")
        }
        isTracked = try c.decode(Bool.self, forKey: .isTracked)
        transform = try c.decodeTransform(forKey: .transform)
        let e = try c.decode([Double].self, forKey: .extent)
        guard e.count == 2 else {
            throw DecodingError.dataCorruptedError(forKey: .extent, in: c, debugDescription: "extent needs 2 numbers")
        }
        extent = SIMD2(e[0], e[1])
        corners = try c.decodePoints(forKey: .corners, count: 4)
        alignment = try c.decodeIfPresent(PlaneAlignment.self, forKey: .alignment)
        polygon = try c.decodePoints(forKey: .polygon, count: nil)
        visible = try c.decodeIfPresent(Double.self, forKey: .visible)
        coverage = try c.decodeIfPresent(Double.self, forKey: .coverage)
        isPlaced = try c.decodeIfPresent(Bool.self, forKey: .isPlaced)
        if let value = try c.decodeIfPresent(String.self, forKey: .payload) {
            let encoding = try c.decodeIfPresent(String.self, forKey: .payloadEncoding)
            guard let payload = CodePayload(streamValue: value, encoding: encoding) else {
                throw DecodingError.dataCorruptedError(forKey: .payload, in: c,
                    debugDescription: "payloadEncoding must be absent (text) or \"base64\" with valid base64")
            }
            self.payload = payload
        }
        codeFormat = try c.decodeIfPresent(CodeFormat.self, forKey: .codeFormat)
        if let latitude = try c.decodeIfPresent(Double.self, forKey: .latitude),
           let longitude = try c.decodeIfPresent(Double.self, forKey: .longitude) {
            coordinate = GeoCoordinate(latitude: latitude, longitude: longitude,
                                       altitude: try c.decodeIfPresent(Double.self, forKey: .altitude) ?? 0)
        }
        geoAccuracy = try c.decodeIfPresent(Double.self, forKey: .geoAccuracy)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(instance, forKey: .instance)
        try c.encodeIfPresent(alignment, forKey: .alignment)
        try c.encodeIfPresent(payload?.streamValue, forKey: .payload)
        try c.encodeIfPresent(payload?.streamEncoding, forKey: .payloadEncoding)
        if codeFormat != .qrCode { try c.encodeIfPresent(codeFormat, forKey: .codeFormat) }
        try c.encodeIfPresent(coordinate?.latitude, forKey: .latitude)
        try c.encodeIfPresent(coordinate?.longitude, forKey: .longitude)
        try c.encodeIfPresent(coordinate?.altitude, forKey: .altitude)
        try c.encodeIfPresent(geoAccuracy.map { ($0 * 100).rounded() / 100 }, forKey: .geoAccuracy)
        try c.encode(isTracked, forKey: .isTracked)
        try c.encode(transform.columnMajor, forKey: .transform)
        try c.encode([extent.x, extent.y], forKey: .extent)
        try c.encodeIfPresent(corners?.map { [$0.x, $0.y] }, forKey: .corners)
        try c.encodeIfPresent(polygon?.map { [$0.x, $0.y] }, forKey: .polygon)
        try c.encodeIfPresent(visible, forKey: .visible)
        try c.encodeIfPresent(coverage, forKey: .coverage)
        try c.encodeIfPresent(isPlaced, forKey: .isPlaced)
    }
}

extension KeyedDecodingContainer {
    /// A rigid transform stored as 16 column-major numbers.
    package func decodeTransform(forKey key: Key) throws -> Transform {
        let m = try decode([Double].self, forKey: key)
        do { return try Transform(columnMajor: m) } catch let e as TransformError {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: e.description)
        }
    }

    /// A list of [x, y] points, optionally of a fixed count.
    func decodePoints(forKey key: Key, count: Int?) throws -> [SIMD2<Double>]? {
        guard let raw = try decodeIfPresent([[Double]].self, forKey: key) else { return nil }
        guard raw.allSatisfy({ $0.count == 2 && $0[0].isFinite && $0[1].isFinite }), count.map({ raw.count == $0 }) ?? true else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                debugDescription: "expected \(count.map(String.init) ?? "a list of") finite [x, y] points")
        }
        return raw.map { SIMD2($0[0], $0[1]) }
    }
}
