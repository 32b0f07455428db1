import AnchorKit
import Foundation
import AnchorKitMedia

/// What `track` reads: a sequence folder (with sequence.json), a video file, or a printf
/// pattern of frame files, and the intrinsics and targets that go with it.
struct FrameInput {
    let source: FrameSource
    let camera: CameraIntrinsics
    let markers: [MarkerSet]
    /// The sequence's QR codes (payload and size).
    let qrCodes: [SequenceDescription.QRCodeTarget]
    /// Reference images (from --image, else the sequence's), with the folder their files are in.
    let images: [SequenceDescription.ImageTarget]
    let imageFolder: String
    /// The first frame, already decoded (it was needed to learn the frame size).
    let firstFrame: Frame?
    /// The sequence's gravity file (resolved), if it names one.
    let gravityPath: String?
    /// The sequence's inertial log (resolved), if it names one.
    let inertialPath: String?
    /// The sequence's location log (resolved) and places given by coordinate.
    let locationPath: String?
    let geoAnchors: [GeoAnchor]
    /// The photo of each frame, when the input is photos (a photo, or a folder of photos without
    /// sequence.json).
    let photos: [String]?
    /// Whether the input has a single frame.
    let isOneFrame: Bool

    init(input: String, cameraPath: String?, markerArguments: [String], imageArguments: [String], fps: Double?) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fm.fileExists(atPath: input, isDirectory: &isDirectory)
        var sequenceCamera: CameraIntrinsics?
        var sequenceMarkers: [MarkerSet] = []
        var sequenceCodes: [SequenceDescription.QRCodeTarget] = []
        var sequenceImages: [SequenceDescription.ImageTarget] = []
        var gravity: String?
        var inertial: String?
        var location: String?
        var places: [GeoAnchor] = []
        var folder = FileManager.default.currentDirectoryPath
        let source: FrameSource
        var photos: [String]?
        if exists && isDirectory.boolValue && !fm.fileExists(atPath: input + "/sequence.json") {
            let still = try StillImageSource(folder: input)
            (source, photos) = (still, still.paths)
        } else if exists && !isDirectory.boolValue && StillImageSource.isPhoto(input) {
            let still = try StillImageSource(paths: [input])
            (source, photos) = (still, still.paths)
        } else if exists && isDirectory.boolValue {
            let sequence = try RecordedSequence(folder: input)
            source = try sequence.openFrames()
            sequenceCamera = sequence.description.camera
            sequenceMarkers = sequence.description.markers ?? []
            sequenceCodes = sequence.description.qrCodes ?? []
            sequenceImages = sequence.description.images ?? []
            folder = sequence.folder
            gravity = sequence.description.gravity.map(sequence.resolve)
            inertial = sequence.description.imu.map { sequence.resolve($0.file) }
            location = sequence.description.location.map(sequence.resolve)
            places = (sequence.description.geoAnchors ?? []).map(\.geoAnchor)
        } else if input.contains("%") {
            source = try ImageFolderSource(pattern: input, framesPerSecond: fps ?? 30)
        } else if exists {
            source = try VideoFileSource(path: input, framesPerSecond: fps)
        } else {
            throw InputError(input, "no such file or folder")
        }
        gravityPath = gravity
        inertialPath = inertial
        locationPath = location
        geoAnchors = places
        qrCodes = sequenceCodes
        self.photos = photos
        isOneFrame = source.expectedFrameCount == 1
        // Decoding overlaps tracking (and the set-up below) from here on.
        self.source = PrefetchingFrameSource(source)
        let first = try self.source.nextFrame()
        firstFrame = first
        if let cameraPath {
            let size = first.map { ($0.image.width, $0.image.height) }
            camera = try CameraIntrinsics.load(contentsOf: cameraPath, imageSize: size)
        } else if let sequenceCamera {
            camera = sequenceCamera
        } else {
            throw InputError(input, "no camera intrinsics: give --camera camera.json (or an OpenCV calibration .yml)")
        }
        if let first {
            do { try camera.checkMatches(width: first.image.width, height: first.image.height) } catch let e as IntrinsicsError {
                throw InputError(cameraPath ?? input, "\(e.message) (\(input))")
            }
        }
        let given = imageArguments.isEmpty && markerArguments.isEmpty
        markers = given ? sequenceMarkers : try markerArguments.map(MarkerSet.init(argument:))
        images = given ? sequenceImages : try imageArguments.map(ReferenceImageSet.target(argument:))
        imageFolder = imageArguments.isEmpty ? folder : FileManager.default.currentDirectoryPath
    }
}
