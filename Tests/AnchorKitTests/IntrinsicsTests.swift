import Foundation
import Testing
@testable import AnchorKit

/// Camera intrinsics files: `camera.json` (FORMATS.md) and OpenCV calibration YAML.
@Suite("Intrinsics files")
struct IntrinsicsTests {
    @Test func cameraJSONWithoutDistortion() throws {
        let folder = TemporaryFolder()
        let path = try folder.write("camera.json", """
            {"width": 640, "height": 480, "fx": 525.0, "fy": 526.5, "cx": 319.5, "cy": 239.5}
            """)
        let c = try CameraIntrinsics.load(contentsOf: path)
        #expect(c.width == 640 && c.height == 480)
        #expect(c.fx == 525 && c.fy == 526.5 && c.cx == 319.5 && c.cy == 239.5)
        #expect(c.distortion.isEmpty)
        #expect(!c.hasDistortion)
        #expect(c.distortion5 == [0, 0, 0, 0, 0])
    }

    @Test func cameraJSONWithDistortion() throws {
        let folder = TemporaryFolder()
        let path = try folder.write("camera.json", """
            {"width": 1280, "height": 720, "fx": 900, "fy": 901, "cx": 640.2, "cy": 360.1,
             "distortion": [-0.2, 0.05, 0.001, -0.001, 0.01]}
            """)
        let c = try CameraIntrinsics.load(contentsOf: path)
        #expect(c.width == 1280 && c.height == 720)
        #expect(c.distortion == [-0.2, 0.05, 0.001, -0.001, 0.01])
        #expect(c.hasDistortion)
        // Four coefficients are fine too (k3 = 0).
        let four = try folder.write("four.json", """
            {"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240, "distortion": [0.1, 0.0, 0.0, 0.0]}
            """)
        #expect(try CameraIntrinsics.load(contentsOf: four).distortion5 == [0.1, 0, 0, 0, 0])
    }

    @Test func cameraJSONRoundTrip() throws {
        let c = try CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 525, cx: 319.5, cy: 239.5,
                                     distortion: [0.1, -0.2, 0, 0, 0.3])
        let data = try JSONEncoder().encode(c)
        #expect(try JSONDecoder().decode(CameraIntrinsics.self, from: data) == c)
    }

    @Test func openCVYAMLWithImageSize() throws {
        let path = Paths.arucoPhotos + "/tutorial_camera_charuco.yml"
        let c = try CameraIntrinsics.load(contentsOf: path)
        #expect(c.width == 640 && c.height == 480)
        #expect(abs(c.fx - 452.51072219637672) < 1e-9)
        #expect(abs(c.fy - 456.76707935146891) < 1e-9)
        #expect(abs(c.cx - 317.70297317353277) < 1e-9)
        #expect(abs(c.cy - 277.75155919135995) < 1e-9)
        #expect(c.distortion.count == 5)
        #expect(abs(c.distortion[0] - 0.12136925618707872) < 1e-12)
        #expect(abs(c.distortion[4] - 2.9542589406810080) < 1e-12)
        // The file's size wins over a frame size given as a fallback.
        let again = try CameraIntrinsics.load(contentsOf: path, imageSize: (640, 480))
        #expect(again == c)
    }

    @Test func openCVYAMLWithoutImageSizeNeedsOne() throws {
        let path = Paths.arucoPhotos + "/tutorial_camera_params.yml"
        let text = expectOneLineError(containing: ["tutorial_camera_params.yml", "image_width"]) {
            _ = try CameraIntrinsics.load(contentsOf: path)
        }
        #expect(text?.hasPrefix(path) == true)
        let c = try CameraIntrinsics.load(contentsOf: path, imageSize: (640, 480))
        #expect(c.width == 640 && c.height == 480)
        #expect(c.fx == 628.158 && c.fy == 628.156 && c.cx == 324.099 && c.cy == 260.908)
        #expect(c.distortion == [0.0995485, -0.206384, 0.00754589, 0.00336531, 0])
    }

    @Test func yamlWithoutCameraMatrix() throws {
        let folder = TemporaryFolder()
        let path = try folder.write("calib.yml", "%YAML:1.0\nimage_width: 640\nimage_height: 480\n")
        expectOneLineError(containing: [path, "camera_matrix"]) { _ = try CameraIntrinsics.load(contentsOf: path) }
    }

    /// A bad camera file, the words its error must contain (besides the file's path).
    struct BadFile: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let mentions: [String]
        var testDescription: String { name }
    }

    static let badFiles = [
        BadFile(name: "malformed JSON", text: #"{"width": 640, "height": 480, "fx": "#, mentions: ["JSON"]),
        BadFile(name: "missing key", text: #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320}"#,
                mentions: ["cy"]),
        BadFile(name: "negative fx", text: #"{"width": 640, "height": 480, "fx": -500, "fy": 500, "cx": 320, "cy": 240}"#,
                mentions: ["fx", "positive"]),
        BadFile(name: "principal point outside",
                text: #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 900, "cy": 240}"#,
                mentions: ["principal point", "outside"]),
        BadFile(name: "3 distortion coefficients",
                text: #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240, "distortion": [0.1, 0.2, 0.3]}"#,
                mentions: ["distortion", "3"]),
        BadFile(name: "zero size", text: #"{"width": 0, "height": 480, "fx": 500, "fy": 500, "cx": 0, "cy": 240}"#,
                mentions: ["size"]),
        BadFile(name: "wrong type", text: #"{"width": "640", "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240}"#,
                mentions: ["width"]),
        BadFile(name: "empty file", text: "", mentions: []),
        BadFile(name: "absurd focal length", text: #"{"width": 640, "height": 480, "fx": 1e-300, "fy": 500, "cx": 320, "cy": 240}"#,
                mentions: ["fx=1e-300", "pixels"]),
        BadFile(name: "enormous focal length", text: #"{"width": 640, "height": 480, "fx": 500, "fy": 1e300, "cx": 320, "cy": 240}"#,
                mentions: ["fy=1e+300"]),
        BadFile(name: "absurd distortion",
                text: #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240, "distortion": [1e300, 0, 0, 0]}"#,
                mentions: ["distortion"]),
        BadFile(name: "8 distortion coefficients (rational model)",
                text: #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240, "distortion": [0.1, 0, 0, 0, 0, 0.2, 0, 0]}"#,
                mentions: ["distortion", "8"]),
    ]

    /// OpenCV calibration YAML with `count` distortion coefficients (k1, k2, p1, p2, k3, then
    /// `extra` for the rest).
    static func calibrationYAML(extra: [Double]) -> String {
        let dist = [0.1, -0.2, 0.001, 0.002, 0.05] + extra
        return """
            %YAML:1.0
            ---
            image_width: 640
            image_height: 480
            camera_matrix: !!opencv-matrix
               rows: 3
               cols: 3
               dt: d
               data: [ 500., 0., 319.5, 0., 500., 239.5, 0., 0., 1. ]
            distortion_coefficients: !!opencv-matrix
               rows: 1
               cols: \(dist.count)
               dt: d
               data: [ \(dist.map { String($0) }.joined(separator: ", ")) ]

            """
    }

    /// k4-k6 of OpenCV's rational model are refused rather than dropped; zeros past k3 are fine.
    @Test func openCVYAMLWithRationalModel() throws {
        let folder = TemporaryFolder()
        let rational = try folder.write("rational.yml", Self.calibrationYAML(extra: [0.3, 0.01, 0.02]))
        expectOneLineError(containing: [rational, "8 coefficients", "k3"]) { _ = try CameraIntrinsics.load(contentsOf: rational) }
        let zeros = try folder.write("zeros.yml", Self.calibrationYAML(extra: [0, 0, 0, 0, 0, 0, 0, 0, 0]))
        #expect(try CameraIntrinsics.load(contentsOf: zeros).distortion == [0.1, -0.2, 0.001, 0.002, 0.05])
    }

    @Test(arguments: badFiles)
    func badCameraFile(_ bad: BadFile) throws {
        let folder = TemporaryFolder()
        let path = try folder.write("camera.json", bad.text)
        let text = expectOneLineError(containing: [path] + bad.mentions) { _ = try CameraIntrinsics.load(contentsOf: path) }
        #expect(text?.hasPrefix(path + ": ") == true, "\(text ?? "")")
    }

    @Test func missingFile() {
        let path = TemporaryFolder().file("nope/camera.json")
        expectOneLineError(containing: [path, "no such file"]) { _ = try CameraIntrinsics.load(contentsOf: path) }
    }

    @Test func frameSizeMismatch() throws {
        let c = try CameraIntrinsics(width: 320, height: 240, fx: 300, fy: 300, cx: 160, cy: 120)
        try c.checkMatches(width: 320, height: 240)
        expectOneLineError(containing: ["320x240", "640x480"]) { try c.checkMatches(width: 640, height: 480) }
    }

    @Test func validationRejectsNonFiniteNumbers() {
        #expect(throws: IntrinsicsError.self) {
            _ = try CameraIntrinsics(width: 640, height: 480, fx: .nan, fy: 500, cx: 320, cy: 240)
        }
        #expect(throws: IntrinsicsError.self) {
            _ = try CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 500, cx: 320, cy: 240,
                                     distortion: [0, 0, .infinity, 0])
        }
        #expect(throws: IntrinsicsError.self) {
            _ = try CameraIntrinsics(width: 100_000, height: 480, fx: 500, fy: 500, cx: 320, cy: 240)
        }
    }
}
