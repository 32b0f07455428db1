import Foundation
import AnchorKit

/// The synthetic image-anchor sequences: posters (opencv-doc photographs) filmed by a handheld
/// 640x480 camera, each stressing one thing a reference-image tracker must survive.
public enum ImageScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["images-approach", "images-rotation", "images-blur-light", "images-occlusion",
                               "images-multi", "images-still", "images-far-approach", "images-shake", "images-table", "images-light"]

    /// Builds the named scene; `frameCount` overrides its default length.
    public static func scene(named name: String, frameCount: Int? = nil, width: Int = 640, height: Int = 480) throws -> SyntheticScene {
        let camera = MarkerScenes.standardCamera(width: width, height: height)
        switch name {
        case "images-approach": return try approach(camera, frameCount ?? 150)
        case "images-rotation": return try rotation(camera, frameCount ?? 120)
        case "images-blur-light": return try blurLight(camera, frameCount ?? 120)
        case "images-occlusion": return try occlusion(camera, frameCount ?? 150)
        case "images-multi": return try multi(camera, frameCount ?? 120)
        case "images-still": return try still(camera, frameCount ?? 90)
        case "images-far-approach": return try farApproach(camera, frameCount ?? 180)
        case "images-shake": return try shake(camera, frameCount ?? 150)
        case "images-table": return try table(camera, frameCount ?? 180)
        case "images-light": return try light(camera, frameCount ?? 150)
        default: throw ReferenceImageError("unknown scene \"\(name)\" (known: \(names.joined(separator: ", ")))")
        }
    }

    /// A scene of this family: 30 frames/s, a fixed exposure (seconds).
    static func make(_ name: String, _ camera: CameraIntrinsics, _ n: Int, planes: [ScenePlane], path: CameraPath,
                     exposure: Double, seed: UInt64) -> SyntheticScene {
        var scene = SyntheticScene(name: name, camera: camera, frameCount: n, planes: planes, path: path)
        scene.exposure = { _ in exposure }
        scene.seed = seed
        return scene
    }

    /// A poster on a wall (facing +z) at `centre`, `width` metres wide.
    static func poster(_ photo: String, name: String, width: Double, centre: SIMD3<Double>, roll: Double = 0) throws -> ScenePlane {
        try poster(photo, name: name, width: width, pose: MarkerScenes.standing(at: centre, roll: roll))
    }

    /// A poster `width` metres wide placed by `pose` (plane to world; the poster faces its +z).
    static func poster(_ photo: String, name: String, width: Double, pose: Transform) throws -> ScenePlane {
        let texture = try PhotoLibrary.photo(photo)
        let size = SIMD2(width, width * Double(texture.height) / Double(texture.width))
        return ScenePlane(texture: texture, size: size, pose: { _ in pose },
                          target: .init(identifier: "image/\(name)", kind: .image, name: name, extent: size))
    }

    static func wall() throws -> ScenePlane {
        ScenePlane(texture: try PhotoLibrary.photo("stuff.jpg"), size: SIMD2(4.0, 3.0), pose: { _ in MarkerScenes.standing(at: SIMD3(0, 1.4, -0.01)) },
                   gain: { _ in 0.8 })
    }

    /// Approach from 3 m to 0.4 m toward a 60 cm poster, with some sideways drift.
    static func approach(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("graf1.png", name: "graffiti", width: 0.6, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        let path = CameraPath(seed: 51, eye: { t in
            let d = 3.0 - 2.6 * Ease.smooth(t / duration)
            return SIMD3(0.25 * sin(0.8 * t) * d / 3, 1.45 + 0.05 * sin(1.3 * t), d)
        }, lookAt: { t in SIMD3(0.02 * sin(t), 1.4, 0) })
        return make("images-approach", camera, n, planes: [try wall(), target], path: path, exposure: 1.0 / 60, seed: 51)
    }

    /// Fast in-plane rotation (a full turn in ~2 s) while the view tilts up to 60°.
    static func rotation(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("starry_night.jpg", name: "starry", width: 0.5, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        var path = CameraPath(seed: 52, eye: { t in
            let tilt = (60.0 * .pi / 180) * sin(.pi * t / duration), d = 0.9
            return SIMD3(d * sin(tilt), 1.4, d * cos(tilt))
        }, lookAt: { _ in SIMD3(0, 1.4, 0) })
        path.roll = { t in 2 * .pi * t / 2.0 }
        return make("images-rotation", camera, n, planes: [try wall(), target], path: path, exposure: 1.0 / 120, seed: 52)
    }

    /// Quick pans with a 1/30 s shutter, the light going from dim (x0.35) to over-bright (x1.8).
    static func blurLight(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("building.jpg", name: "building", width: 0.6, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        let path = CameraPath(seed: 53, eye: { t in SIMD3(0.2 * sin(2.6 * t), 1.4 + 0.05 * sin(1.9 * t), 1.1) },
                              lookAt: { t in SIMD3(0.12 * sin(2.6 * t + 0.5), 1.4, 0) })
        var scene = make("images-blur-light", camera, n, planes: [try wall(), target], path: path, exposure: 1.0 / 30, seed: 53)
        scene.instantsPerExposure = 9
        scene.lighting = { t in 0.35 * pow(1.8 / 0.35, t / duration) }
        scene.sensor.readNoise = 3
        return scene
    }

    /// A slow look along a wall of posters while the light changes as it does indoors: dimmed to
    /// 0.45 and raised to 1.5 (factors on pixel values), warm (2700 K, a tungsten bulb) to
    /// overcast (9000 K) and back: the truth of the light estimate.
    static func light(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let posters = [try poster("graf1.png", name: "graffiti", width: 0.5, centre: SIMD3(-0.35, 1.4, 0)),
                       try poster("building.jpg", name: "building", width: 0.45, centre: SIMD3(0.35, 1.45, 0))]
        let duration = Double(n) / 30
        let path = CameraPath(seed: 54, eye: { t in SIMD3(0.3 * sin(0.9 * t), 1.4 + 0.04 * sin(1.3 * t), 1.4) },
                              lookAt: { t in SIMD3(0.25 * sin(0.9 * t + 0.3), 1.4, 0) })
        var scene = make("images-light", camera, n, planes: [try wall()] + posters, path: path, exposure: 1.0 / 60, seed: 54)
        scene.lighting = { t in 0.45 + 1.05 * (0.5 - 0.5 * cos(2 * .pi * t / duration)) }
        scene.illuminant = { t in 2700 * pow(9000.0 / 2700, 0.5 - 0.5 * cos(2 * .pi * 1.5 * t / duration)) }
        return scene
    }

    /// A hand-held card sweeps across the poster, then the camera pans until half of it leaves
    /// the frame and back.
    static func occlusion(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("butterfly.jpg", name: "butterfly", width: 0.5, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        let card = ScenePlane(texture: try PhotoLibrary.photo("box.png"), size: SIMD2(0.22, 0.15), pose: { t in
            let u = (t - 0.2 * duration) / (0.3 * duration)
            return MarkerScenes.standing(at: SIMD3(-0.5 + 1.0 * u, 1.38, 0.35))
        })
        let path = CameraPath(seed: 54, eye: { t in
            let pan = 0.45 * Ease.smooth((t / duration - 0.55) / 0.2) * (1 - Ease.smooth((t / duration - 0.8) / 0.15))
            return SIMD3(pan, 1.42, 1.0)
        }, lookAt: { t in
            let pan = 0.45 * Ease.smooth((t / duration - 0.55) / 0.2) * (1 - Ease.smooth((t / duration - 0.8) / 0.15))
            return SIMD3(pan, 1.4, 0)
        })
        return make("images-occlusion", camera, n, planes: [try wall(), target, card], path: path, exposure: 1.0 / 60, seed: 54)
    }

    /// Three posters side by side, panned across, with 50 distractor references in the set.
    static func multi(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let planes = [try wall(),
                      try poster("graf1.png", name: "graffiti", width: 0.4, centre: SIMD3(-0.5, 1.4, 0)),
                      try poster("baboon.jpg", name: "baboon", width: 0.3, centre: SIMD3(0, 1.45, 0), roll: 0.1),
                      try poster("home.jpg", name: "home", width: 0.4, centre: SIMD3(0.5, 1.38, 0))]
        let duration = Double(n) / 30
        let path = CameraPath(seed: 55, eye: { t in SIMD3(-0.3 + 0.6 * t / duration, 1.45, 1.3 + 0.1 * sin(t)) },
                              lookAt: { t in SIMD3(-0.25 + 0.5 * t / duration, 1.4, 0) })
        var scene = make("images-multi", camera, n, planes: planes, path: path, exposure: 1.0 / 60, seed: 55)
        scene.distractors = try distractors(count: 50)
        return scene
    }

    /// A still camera (tripod: no shake) 1.2 m from a poster, for jitter.
    static func still(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("starry_night.jpg", name: "starry", width: 0.5, centre: SIMD3(0, 1.4, 0))
        var path = CameraPath(seed: 56, eye: { _ in SIMD3(0.3, 1.5, 1.2) }, lookAt: { _ in SIMD3(0, 1.4, 0) })
        path.shakePosition = 0
        path.shakeRotation = 0
        var scene = SyntheticScene(name: "images-still", camera: camera, frameCount: n, planes: [try wall(), target], path: path)
        scene.seed = 56
        return scene
    }

    /// Approach from 5 m to 0.6 m toward a 40 cm poster, which starts about 40 px wide at 640x480.
    static func farApproach(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("aero3.jpg", name: "aero", width: 0.4, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        let path = CameraPath(seed: 57, eye: { t in
            let d = 5.0 - 4.4 * Ease.smooth(t / duration)
            return SIMD3(0.3 * sin(0.7 * t) * d / 5, 1.5 + 0.05 * sin(1.1 * t), d)
        }, lookAt: { t in SIMD3(0.03 * sin(0.9 * t), 1.4, 0) })
        return make("images-far-approach", camera, n, planes: [try wall(), target], path: path, exposure: 1.0 / 60, seed: 57)
    }

    /// A fast shake (motion blur of 20-35 px at its peaks, 1/30 s shutter) while the light goes
    /// from x1 to x0.25 and up to x2.8.
    static func shake(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let target = try poster("leuvenA.jpg", name: "leuven", width: 0.6, centre: SIMD3(0, 1.4, 0))
        let duration = Double(n) / 30
        // The view turns by up to 0.09 rad at 3 Hz (peak rate 1.7 rad/s, about 30 px in 1/30 s
        // at f = 525 px), with slower drift on the other axis.
        let path = CameraPath(seed: 58, eye: { t in SIMD3(0.15 * sin(0.9 * t), 1.45, 1.0) }, lookAt: { t in
            SIMD3(0.15 * sin(0.9 * t) + 0.09 * sin(2 * .pi * 3 * t), 1.4 + 0.04 * sin(2 * .pi * 1.3 * t), 0)
        })
        var scene = make("images-shake", camera, n, planes: [try wall(), target], path: path, exposure: 1.0 / 30, seed: 58)
        scene.instantsPerExposure = 15
        scene.lighting = { t in
            let u = t / duration
            return u < 0.5 ? pow(0.25, u / 0.5) : 0.25 * pow(2.8 / 0.25, (u - 0.5) / 0.5)
        }
        scene.sensor.readNoise = 3
        return scene
    }

    /// Two small posters lying on a table, seen obliquely, and one on the wall behind, passed by
    /// a walking camera, with 50 distractor references in the set.
    static func table(_ camera: CameraIntrinsics, _ n: Int) throws -> SyntheticScene {
        let top = ScenePlane(texture: try PhotoLibrary.photo("building.jpg"), size: SIMD2(1.4, 0.8),
                             pose: { _ in MarkerScenes.lying(at: SIMD3(0, 0.75, 0.6)) })
        let planes = [try wall(), top,
                      try poster("home.jpg", name: "home", width: 0.5, centre: SIMD3(0.2, 1.5, 0)),
                      try poster("graf3.png", name: "graf", width: 0.2, pose: MarkerScenes.lying(at: SIMD3(-0.35, 0.751, 0.6), yaw: 0.4)),
                      try poster("box.png", name: "box", width: 0.18, pose: MarkerScenes.lying(at: SIMD3(0.3, 0.751, 0.7), yaw: -0.3))]
        let duration = Double(n) / 30
        let path = CameraPath(seed: 59, eye: { t in SIMD3(-0.6 + 1.2 * t / duration, 1.45 + 0.03 * sin(1.7 * t), 1.9) },
                              lookAt: { t in SIMD3(-0.3 + 0.6 * t / duration, 0.9, 0.4) })
        var scene = make("images-table", camera, n, planes: planes, path: path, exposure: 1.0 / 60, seed: 59)
        scene.distractors = try distractors(count: 50)
        return scene
    }

    /// Reference images that are not in any scene: opencv-doc photographs and seeded crops of
    /// them, each 320 px wide.
    public static func distractors(count: Int) throws -> [(name: String, image: Image, physicalWidth: Double)] {
        let photos = ["aero1.jpg", "apple.jpg", "orange.jpg", "messi5.jpg", "pic1.png", "pic3.png", "pic5.png", "fruits.jpg",
                      "HappyFish.jpg", "smarties.png", "left01.jpg", "right05.jpg", "blox.jpg", "board.jpg", "squirrel_cls.jpg",
                      "notes.png", "sudoku.png", "ela_original.jpg", "leuvenA.jpg", "aloeL.jpg", "basketball1.png", "rubberwhale1.png",
                      "licenseplate_motion.jpg", "Blender_Suzanne1.jpg", "chicky_512.png"]
        var result: [(String, Image, Double)] = []
        var random = SplitMix64(seed: 99)
        for k in 0..<count {
            let photo = try PhotoLibrary.photo(photos[k % photos.count]).converted(toChannels: 1)
            // The first pass uses whole photos; later ones crops of 40-70 % at seeded places.
            var image = photo
            if k >= photos.count {
                let f = 0.4 + 0.3 * random.nextUnit()
                let w = Int(Double(photo.width) * f), h = Int(Double(photo.height) * f)
                image = try photo.cropped(x: Int(random.nextUnit() * Double(photo.width - w)),
                                          y: Int(random.nextUnit() * Double(photo.height - h)), width: w, height: h)
            }
            let scaled = try image.resized(width: 320, height: max(32, 320 * image.height / image.width))
            result.append(("distractor\(k)", scaled, 0.3))
        }
        return result
    }
}
