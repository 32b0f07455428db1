import AnchorKitCV

/// A dictionary of square fiducial markers: one of OpenCV's predefined ArUco and AprilTag
/// dictionaries, or a custom one read from OpenCV's YAML form.
public final class MarkerDictionary: @unchecked Sendable {
    /// OpenCV's names of the predefined dictionaries, in the order of their enum values
    /// (`cv::aruco::PREDEFINED_DICTIONARY_NAME`, OpenCV 4.6).
    public static let predefinedNames = [
        "DICT_4X4_50", "DICT_4X4_100", "DICT_4X4_250", "DICT_4X4_1000",
        "DICT_5X5_50", "DICT_5X5_100", "DICT_5X5_250", "DICT_5X5_1000",
        "DICT_6X6_50", "DICT_6X6_100", "DICT_6X6_250", "DICT_6X6_1000",
        "DICT_7X7_50", "DICT_7X7_100", "DICT_7X7_250", "DICT_7X7_1000",
        "DICT_ARUCO_ORIGINAL",
        "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9", "DICT_APRILTAG_36h10", "DICT_APRILTAG_36h11",
    ]

    let handle: OpaquePointer
    /// The name used in anchor ids (`marker/<name>/<id>`): OpenCV's name, or the file's name.
    public let name: String
    /// How many codes the dictionary has (valid ids are 0..<count).
    public let count: Int
    /// Bits per side of the code, without the black border.
    public let bits: Int

    /// A predefined dictionary by OpenCV's name (e.g. `DICT_4X4_50`, `DICT_APRILTAG_36h11`).
    public convenience init(named name: String) throws {
        guard let id = Self.predefinedNames.firstIndex(of: name) else {
            throw MarkerError("unknown marker dictionary \"\(name)\" (known: \(Self.predefinedNames.joined(separator: ", ")))")
        }
        var out: OpaquePointer?
        try NativeError.check(ak_dictionary_predefined(Int32(id), &out), name)
        self.init(taking: out!, name: name)
    }

    /// A custom dictionary from an OpenCV YAML file (`nmarkers`, `markersize`, `marker_<i>`).
    public convenience init(contentsOf path: String, name: String? = nil) throws {
        var out: OpaquePointer?
        do { try NativeError.check(ak_dictionary_read(path, &out)) } catch let e as NativeError {
            throw InputError(path, native: e)
        }
        let base = path.split(separator: "/").last.map(String.init) ?? path
        self.init(taking: out!, name: name ?? base.replacingOccurrences(of: ".yml", with: "").replacingOccurrences(of: ".yaml", with: ""))
    }

    /// A predefined dictionary by name, or a custom one when `name` is a path to an OpenCV YAML
    /// file (ending in .yml or .yaml).
    public static func resolve(_ name: String) throws -> MarkerDictionary {
        if name.hasSuffix(".yml") || name.hasSuffix(".yaml") { return try MarkerDictionary(contentsOf: name) }
        return try MarkerDictionary(named: name)
    }

    private init(taking handle: OpaquePointer, name: String) {
        self.handle = handle
        self.name = name
        var n: Int32 = 0, b: Int32 = 0
        ak_dictionary_info(handle, &n, &b)
        count = Int(n); bits = Int(b)
    }

    deinit { ak_dictionary_free(handle) }

    /// The printable image of marker `id`: a `side`-pixel black-bordered code inside a white
    /// quiet zone `margin` pixels wide (gray, total side `side + 2 * margin`).
    public func image(id: Int, side: Int, margin: Int) throws -> Image {
        guard (0..<count).contains(id) else { throw MarkerError("marker id \(id) is not in \(name) (0..<\(count))") }
        return try Image.make("marker \(id)") { ak_marker_draw(handle, Int32(id), Int32(side), Int32(margin), $0) }
    }
}

/// A marker configuration or detection problem.
public struct MarkerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
