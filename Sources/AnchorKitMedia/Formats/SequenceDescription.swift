import Foundation
import AnchorKit

/// The contents of a recorded sequence's `sequence.json` (../shared/FORMATS.md).
public struct SequenceDescription: Codable, Sendable {
    /// A reference image: `physicalWidth` is the printed width in metres.
    public struct ImageTarget: Codable, Sendable, Equatable {
        public var name: String
        public var file: String
        public var physicalWidth: Double
        public init(name: String, file: String, physicalWidth: Double) {
            self.name = name; self.file = file; self.physicalWidth = physicalWidth
        }
    }

    /// A printed QR code: its payload (text; bytes as base64 with `payloadEncoding` `"base64"`) and
    /// the side of its square in metres (finder patterns included, quiet zone excluded).
    public struct QRCodeTarget: Codable, Sendable, Equatable {
        public var payload: String
        public var payloadEncoding: String?
        public var size: Double
        public init(payload: CodePayload, size: Double) {
            self.payload = payload.streamValue; self.payloadEncoding = payload.streamEncoding; self.size = size
        }
        /// The payload, nil when the encoding is unknown or the base64 malformed.
        public var codePayload: CodePayload? { CodePayload(streamValue: payload, encoding: payloadEncoding) }
        /// This code's size, for exactly its payload; nil when the payload is malformed.
        public var payloadSize: QRCodeSet.PayloadSize? { codePayload.map { QRCodeSet.PayloadSize(payload: $0, size: size) } }
    }

    /// An inertial log beside the frames (FORMATS: `imu`).
    public struct InertialLogDescription: Codable, Sendable, Equatable {
        public var file: String
        /// The axes of the samples: `"camera"` (ARKit's camera axes).
        public var frame: String
        public var rate: Double?
        public init(file: String, frame: String = "camera", rate: Double? = nil) { self.file = file; self.frame = frame; self.rate = rate }
    }

    /// A place given by coordinate (FORMATS: `geoAnchors`): WGS84 degrees, metres above the ellipsoid.
    public struct GeoAnchorDescription: Codable, Sendable, Equatable {
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?
        public init(_ anchor: GeoAnchor) {
            name = anchor.name; latitude = anchor.coordinate.latitude; longitude = anchor.coordinate.longitude
            altitude = anchor.altitudeSource == .ground ? nil : anchor.coordinate.altitude
        }
        /// Reads a JSON list of places (as sequence.json's `geoAnchors`), checking each coordinate.
        public static func read(contentsOf path: String) throws -> [GeoAnchor] {
            guard let data = FileManager.default.contents(atPath: path) else { throw InputError(path, "no such file") }
            let list: [GeoAnchorDescription]
            do { list = try JSONDecoder().decode([GeoAnchorDescription].self, from: data) } catch let e as DecodingError {
                throw InputError(path, "malformed: \(JSONProblem.describe(e))")
            }
            return try list.map { d in
                guard !d.name.isEmpty else { throw InputError(path, "a place without a name") }
                if let problem = d.geoAnchor.coordinate.problem { throw InputError(path, "\"\(d.name)\": \(problem)") }
                return d.geoAnchor
            }
        }

        /// The anchor; on the ground under the camera where no altitude is given.
        public var geoAnchor: GeoAnchor {
            GeoAnchor(name: name, latitude: latitude, longitude: longitude, altitude: altitude)
        }
    }

    public var name: String
    public var fps: Double
    /// A printf pattern for frame files, relative to the folder (exclusive with ``video``).
    public var frames: String?
    /// A video file, relative to the folder (exclusive with ``frames``).
    public var video: String?
    public var camera: CameraIntrinsics
    public var images: [ImageTarget]?
    public var markers: [MarkerSet]?
    public var qrCodes: [QRCodeTarget]?
    public var gravity: String?
    public var imu: InertialLogDescription?
    /// A location log beside the frames (FORMATS: `location`; JSON Lines, GPX or NMEA 0183).
    public var location: String?
    public var geoAnchors: [GeoAnchorDescription]?
    public var groundTruth: String?

    public init(name: String, fps: Double, frames: String? = nil, video: String? = nil, camera: CameraIntrinsics,
                images: [ImageTarget]? = nil, markers: [MarkerSet]? = nil, qrCodes: [QRCodeTarget]? = nil, gravity: String? = nil,
                imu: InertialLogDescription? = nil, groundTruth: String? = nil) {
        self.name = name; self.fps = fps; self.frames = frames; self.video = video; self.camera = camera
        self.images = images; self.markers = markers; self.qrCodes = qrCodes; self.gravity = gravity; self.imu = imu; self.groundTruth = groundTruth
    }

    /// Checks what the schema alone cannot: exactly one frame source, rates and sizes in
    /// ``Plausible``'s ranges.
    public func validate() throws {
        func fail(_ p: String) -> InputError { InputError("", p) }
        guard (frames == nil) != (video == nil) else { throw fail("exactly one of \"frames\" and \"video\" must be set") }
        if let problem = Plausible.frameRateProblem(fps) { throw fail("fps: \(problem)") }
        for m in markers ?? [] {
            if let problem = Plausible.physicalSizeProblem(m.size, of: "marker size") { throw fail(problem) }
        }
        if let imu, imu.frame != "camera" { throw fail("imu: frame \"\(imu.frame)\": only \"camera\" (ARKit's camera axes) is read") }
        for q in qrCodes ?? [] {
            guard q.codePayload != nil else { throw fail("qrCodes: payload \"\(q.payload)\": payloadEncoding must be absent or \"base64\" with valid base64") }
            if let problem = Plausible.physicalSizeProblem(q.size, of: "QR code size") { throw fail(problem) }
        }
        var geoNames = Set<String>()
        for g in geoAnchors ?? [] {
            guard !g.name.isEmpty, geoNames.insert(g.name).inserted else { throw fail("geoAnchors: names must be unique and not empty (\"\(g.name)\")") }
            if let problem = g.geoAnchor.coordinate.problem { throw fail("geoAnchors: \"\(g.name)\": \(problem)") }
        }
        for i in images ?? [] {
            if let problem = Plausible.physicalSizeProblem(i.physicalWidth, of: "image \"\(i.name)\": physicalWidth") {
                throw fail(problem)
            }
        }
    }
}

/// A recorded sequence folder: its description and paths resolved against the folder.
public struct RecordedSequence: Sendable {
    /// The folder.
    public let folder: String
    /// The parsed `sequence.json`.
    public let description: SequenceDescription

    /// Loads and validates `<folder>/sequence.json`.
    public init(folder: String) throws {
        let path = folder + "/sequence.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, FileManager.default.fileExists(atPath: folder) ? "no such file (not a sequence folder?)" : "no such file")
        }
        do {
            description = try JSONDecoder().decode(SequenceDescription.self, from: data)
            try description.validate()
        } catch let e as DecodingError {
            throw InputError(path, "malformed: \(JSONProblem.describe(e))")
        } catch let e as InputError {
            throw InputError(path, e.problem)
        } catch let e as IntrinsicsError {
            throw InputError(path, "camera: \(e.message)")
        }
        self.folder = folder
    }

    /// A path inside the folder.
    public func resolve(_ relative: String) -> String {
        relative.hasPrefix("/") ? relative : folder + "/" + relative
    }

    /// Every file the sequence names: sequence.json, the frames (those that exist) or video,
    /// gravity, ground truth and reference images.
    public var files: [String] {
        let d = description
        let frames = d.frames.map { ImageFolderSource.frames(of: resolve($0)) } ?? []
        let named = [d.video, d.gravity, d.imu?.file, d.location, d.groundTruth].compactMap { $0 } + (d.images ?? []).map(\.file)
        return [folder + "/sequence.json"] + frames + named.map(resolve)
    }

    /// Opens the frames (image pattern or video) and checks their size against the intrinsics.
    public func openFrames() throws -> FrameSource {
        let d = description
        let source: FrameSource, name: String, width: Int, height: Int
        if let video = d.video {
            let v = try VideoFileSource(path: resolve(video), framesPerSecond: d.fps)
            (source, name, width, height) = (v, video, v.width, v.height)
        } else {
            let f = try ImageFolderSource(pattern: resolve(d.frames!), framesPerSecond: d.fps)
            (source, name, width, height) = (f, d.frames!, f.width, f.height)
        }
        do { try d.camera.checkMatches(width: width, height: height) } catch let e as IntrinsicsError {
            throw InputError(folder + "/sequence.json", "camera: \(e.message) (\(name))")
        }
        return source
    }

    /// The ground-truth stream, if the sequence names one.
    public func groundTruth() throws -> [FrameUpdate]? {
        try description.groundTruth.map { try AnchorStreamReader.read(contentsOf: resolve($0), camera: description.camera) }
    }
}
