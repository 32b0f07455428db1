import AnchorKit

// The sequence description (FORMATS.md's sequence.json) turned into the core's reference images
// and configuration: the core does not read sequence files itself.

extension ReferenceImage {
    /// Loads a sequence description's image target, its file resolved against `folder`; errors
    /// name the file.
    public convenience init(target: SequenceDescription.ImageTarget, folder: String) throws {
        let path = target.file.hasPrefix("/") ? target.file : folder + "/" + target.file
        do { try self.init(name: target.name, contentsOf: path, physicalWidth: target.physicalWidth) } catch let e as ReferenceImageError {
            throw InputError(path, e.description)
        }
    }
}

extension ReferenceImageSet {
    /// Loads the `images` of a sequence description, resolving files against `folder`.
    public convenience init(targets: [SequenceDescription.ImageTarget], folder: String) throws {
        try self.init(targets.map { try ReferenceImage(target: $0, folder: folder) })
    }

    /// Parses the command line's `NAME=PATH:WIDTH_METRES` (e.g. `poster=poster.png:0.4`).
    public static func target(argument: String) throws -> SequenceDescription.ImageTarget {
        guard let eq = argument.firstIndex(of: "="), let colon = argument.lastIndex(of: ":"), eq < colon,
              let width = Double(argument[argument.index(after: colon)...]) else {
            throw ReferenceImageError("image \"\(argument)\": expected NAME=PATH:WIDTH_METRES, e.g. poster=poster.png:0.4")
        }
        return SequenceDescription.ImageTarget(name: String(argument[..<eq]), file: String(argument[argument.index(after: eq)..<colon]),
                                               physicalWidth: width)
    }
}

extension Configuration {
    /// The configuration a recorded sequence describes: its camera, markers, QR codes (each
    /// payload's size), reference images, per-frame gravity (which aligns a world tracked by odometry, and shows images lying level in a top view), the inertial
    /// log, and the location log and geo anchors, loaded from the sequence folder. World tracking stays off until set
    /// (geo tracking needs it), and so does ``Configuration/worldAlignment`` stay `.gravity`: `.gravityAndHeading`
    /// needs visual odometry, which is the caller's choice (`anchorkit track` picks it where the log has a compass).
    public init(sequence: RecordedSequence) throws {
        let d = sequence.description
        let images = try d.images.flatMap { $0.isEmpty ? nil : try ReferenceImageSet(targets: $0, folder: sequence.folder) }
        self.init(camera: d.camera, markers: d.markers ?? [], referenceImages: images)
        if let codes = d.qrCodes, !codes.isEmpty {
            qrCodes = QRCodeSet(sizes: codes.compactMap(\.payloadSize))
        }
        gravity = try d.gravity.map { try GravityFile.read(contentsOf: sequence.resolve($0)) }
        inertial = try d.imu.map { try InertialLog.read(contentsOf: sequence.resolve($0.file)) }
        location = try d.location.map { try LocationLogFile.read(contentsOf: sequence.resolve($0)).log }
        geoAnchors = (d.geoAnchors ?? []).map(\.geoAnchor)
    }
}
