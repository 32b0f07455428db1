import Foundation
import AnchorKit
import AnchorKitMedia

/// The synthetic QR-code sequences: printed codes filmed by a handheld 640x480 camera, with their
/// payloads in the ground truth.
public enum CodeScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["qr-table", "qr-far-blur"]

    /// Builds the named scene; `frameCount` overrides its default length.
    public static func scene(named name: String, frameCount: Int? = nil) throws -> SyntheticScene {
        switch name {
        case "qr-table": return try table(frameCount: frameCount ?? 150)
        case "qr-far-blur": return try farBlur(frameCount: frameCount ?? 150)
        default: throw MarkerError("unknown scene \"\(name)\" (known: \(names.joined(separator: ", ")))")
        }
    }

    /// A printed QR code: the symbol with its 4-module quiet zone, as a plane of the scene; `size`
    /// is the symbol's side (quiet zone excluded), metres.
    static func codePlane(_ payload: CodePayload, size: Double, pose: Transform, instance: Int = 0) throws -> ScenePlane {
        let (texture, modules) = try Image.qrCode(payload, modulePixels: 8, quietModules: 4)
        let paper = size * Double(modules + 8) / Double(modules)
        return ScenePlane(texture: texture, size: SIMD2(paper, paper), pose: { _ in pose },
                          target: .init(identifier: Anchor.qrIdentifier(payload: payload, instance: instance), kind: .qr, name: "",
                                        instance: instance == 0 ? nil : instance, extent: SIMD2(size, size), payload: payload))
    }

    /// Payloads as they come: a URL, text beyond ASCII, and bytes that are not UTF-8.
    static let url = CodePayload.text("https://example.org/exhibit?id=42")
    static let label = CodePayload.text("Halle 3 – Stand 12 ✓")
    static let bytes = CodePayload.bytes([0x00, 0xFF, 0x80, 0x41, 0xC3, 0x28, 0x7F, 0xFE, 0x10, 0x20])

    /// Four codes on a table (a URL printed twice, 6 cm; a label, 8 cm; bytes, 5 cm), an orbiting
    /// handheld camera 0.4–0.7 m away tilting up to ~50°, and light that drifts by ±25 %.
    static func table(frameCount: Int) throws -> SyntheticScene {
        let table = ScenePlane(texture: try PhotoLibrary.photo("fruits.jpg"), size: SIMD2(1.2, 0.9), pose: { _ in MarkerScenes.lying(at: .zero) })
        let codes = [
            try codePlane(url, size: 0.06, pose: MarkerScenes.lying(at: SIMD3(-0.12, 0.001, -0.07), yaw: 0.2)),
            try codePlane(label, size: 0.08, pose: MarkerScenes.lying(at: SIMD3(0.10, 0.001, -0.06), yaw: -0.5)),
            try codePlane(bytes, size: 0.05, pose: MarkerScenes.lying(at: SIMD3(-0.07, 0.001, 0.09), yaw: 2.0)),
            try codePlane(url, size: 0.06, pose: MarkerScenes.lying(at: SIMD3(0.12, 0.001, 0.08), yaw: 0.9), instance: 1),
        ]
        let duration = Double(frameCount) / 30
        let path = CameraPath(seed: 53, eye: { t in
            let a = -0.8 + 1.5 * t / duration, elevation = 1.0 + 0.3 * sin(1.1 * t), r = 0.55 + 0.15 * sin(0.8 * t)
            return SIMD3(r * cos(elevation) * sin(a), r * sin(elevation), r * cos(elevation) * cos(a))
        }, lookAt: { t in SIMD3(0.015 * sin(t), 0, 0.01 * cos(2 * t)) })
        var scene = SyntheticScene(name: "qr-table", camera: MarkerScenes.standardCamera(), frameCount: frameCount,
                                   planes: [table] + codes, path: path)
        scene.exposure = { _ in 1.0 / 60 }
        scene.lighting = { t in 1 + 0.25 * sin(2 * .pi * t / duration) }
        scene.qrCodes = [.init(payload: url, size: 0.06), .init(payload: label, size: 0.08), .init(payload: bytes, size: 0.05)]
        scene.seed = 7
        return scene
    }

    /// Two 10 cm codes on a wall, the camera walking in from 2.4 m to 0.5 m while it sways, in dim
    /// light with a 1/30 s shutter: codes start ~25 px wide and blur as the camera swings.
    static func farBlur(frameCount: Int) throws -> SyntheticScene {
        let wall = ScenePlane(texture: try PhotoLibrary.photo("building.jpg"), size: SIMD2(2.4, 1.8),
                              pose: { _ in MarkerScenes.standing(at: SIMD3(0, 1.3, 0)) })
        let codes = [
            try codePlane(url, size: 0.10, pose: MarkerScenes.standing(at: SIMD3(-0.09, 1.34, 0.001))),
            try codePlane(label, size: 0.10, pose: MarkerScenes.standing(at: SIMD3(0.11, 1.26, 0.001), roll: 0.25)),
        ]
        let duration = Double(frameCount) / 30
        let path = CameraPath(seed: 59, eye: { t in
            let u = Ease.smooth(t / duration)
            let d = 2.4 - 1.9 * u
            return SIMD3(0.3 * sin(1.6 * t) * d / 2.4, 1.32 + 0.08 * sin(1.3 * t), d)
        }, lookAt: { t in SIMD3(0.03 * sin(2.2 * t), 1.3, 0) })
        var scene = SyntheticScene(name: "qr-far-blur", camera: MarkerScenes.standardCamera(), frameCount: frameCount,
                                   planes: [wall] + codes, path: path)
        scene.exposure = { _ in 1.0 / 30 }
        scene.instantsPerExposure = 7
        scene.lighting = { _ in 0.7 }
        scene.sensor.readNoise = 2.5
        scene.qrCodes = [.init(payload: url, size: 0.10), .init(payload: label, size: 0.10)]
        scene.seed = 8
        return scene
    }
}
