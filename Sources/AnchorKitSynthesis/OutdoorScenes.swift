import Foundation
import AnchorKit

/// The synthetic outdoor sequences, for geo tracking (issue 26): a handheld 640x480 camera
/// carried down a city street, with the places of a landmark tour given by coordinate.
///
/// The street (scene coordinates, metres, +y up): 16 m between façades (x = ±8), running along
/// -z from z = +10 to z = -150, paved, the façades 14 m high, a building across its far end.
/// Façades and paving are mosaics of photographs (``TextureMosaic``) at 3 and 2 cm per texel,
/// shaded by their orientation under a light from the south-west. They are not listed as plane
/// surfaces in ground truth (these sequences measure geo tracking; dozens of blocks would make
/// the truth file several times the video's size).
public enum OutdoorScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["street-walk", "street-drive"]

    /// Builds the named scene; `frameCount` overrides its default length (1800 frames, 60 s).
    public static func scene(named name: String, frameCount: Int? = nil) throws -> SyntheticScene {
        switch name {
        case "street-walk": return try walk(frameCount: frameCount ?? 1800)
        case "street-drive": return try drive(frameCount: frameCount ?? 1800)
        default: throw InputError(name, "unknown scene (known: \(names.joined(separator: ", ")))")
        }
    }

    /// The street's half width (to the façades) and façade height, metres; where the walk's street
    /// begins and ends along z (the drive's runs on to ``driveEnd``).
    static let halfWidth = 8.0, facadeHeight = 14.0, streetEnds = (near: 10.0, far: -150.0), driveEnd = -680.0

    // MARK: The scenes

    /// A 60 s walk on the right-hand pavement at 1.4 m/s (84 m), eye 1.55 m high, the view turning
    /// between the façades across the street and the way ahead (±30°), pitched 8–14° down.
    static func walk(frameCount n: Int) throws -> SyntheticScene {
        var scene = SyntheticScene(name: "street-walk", camera: MarkerScenes.standardCamera(), frameCount: n,
                                   planes: try street(seed: 9100, far: streetEnds.far), path: walkPath)
        scene.exposure = { _ in 1.0 / 500 }  // daylight: a short shutter
        scene.instantsPerExposure = 2
        scene.background = 200  // sky
        scene.inertialSensor = InertialSensor()  // a phone's: world tracking is metric from it
        scene.georeference = walkTour
        scene.seed = 91
        return scene
    }

    /// A 60 s drive down the right lane of a 690 m avenue at 8-11 m/s (600 m), a camera on the
    /// dashboard 1.3 m high looking ahead (±4° of steering and a car's small vibration), the
    /// navigation aid's places: the next turn 300 m on, a sign on the right façade, the destination
    /// at the far end.
    static func drive(frameCount n: Int) throws -> SyntheticScene {
        let distance = { (t: Double) -> Double in 10 * t - 1.2 * (1 - cos(2 * .pi * t / 20)) * 20 / (2 * .pi) }
        let eye = { (t: Double) -> SIMD3<Double> in SIMD3(2.2 + 0.3 * sin(t / 7), 1.3, 5 - distance(t)) }
        var path = CameraPath(seed: 92, eye: eye, lookAt: { t in
            let steer = 0.07 * sin(t / 5), pitch = -0.06
            return eye(t) + SIMD3(-sin(steer) * cos(pitch), sin(pitch), -cos(steer) * cos(pitch))
        })
        path.shakePosition = 0.003  // a car's vibration, not a hand's sway
        path.shakeRotation = 0.002
        var scene = SyntheticScene(name: "street-drive", camera: MarkerScenes.standardCamera(), frameCount: n,
                                   planes: try street(seed: 9200, far: driveEnd, facadeTexel: 0.05), path: path)
        scene.exposure = { _ in 1.0 / 1000 }
        scene.instantsPerExposure = 2
        scene.background = 200
        scene.inertialSensor = InertialSensor()
        var georeference = SceneGeoreference(origin: GeoCoordinate(latitude: 45.5550, longitude: 18.6950, altitude: 130), bearing: 35)
        georeference.places = [("next-turn", SIMD3(0, 0, -300)), ("fuel-sign", SIMD3(halfWidth - 0.1, 5, -180)),
                               ("destination", SIMD3(0, 6, driveEnd + 0.1))]
        georeference.sensor.disturbances = [SIMD3(2, 0, -120), SIMD3(2, 0, -420)]  // a bridge, a tram line
        scene.georeference = georeference
        scene.seed = 92
        return scene
    }

    /// street-walk's places and location log, steel beside the pavement twice.
    static let walkTour = tour(disturbances: [SIMD3(4, 0, -20), SIMD3(4, 0, -62)])

    /// street-walk's path: stops every 6 s, the view turning from side to side.
    static let walkPath: CameraPath = {
        let stops = stride(from: 0.0, through: 60, by: 6).enumerated().map { k, t in
            RoomScenes.Stop(position: SIMD3(4.0 + 0.4 * sin(0.7 * Double(k)), 1.55, 6 - 1.4 * t),
                            heading: (k % 2 == 0 ? 0.45 : -0.35) * (k % 3 == 0 ? 0.5 : 1), pitch: -8 - 6 * Double(k % 2))
        }
        return RoomScenes.walkPath(seed: 91, stops: stops, duration: 60)
    }()

    // MARK: The street

    /// The street on the Earth (a square in Osijek, its -z axis 35° east of north, the paving 130 m
    /// above the ellipsoid) and a landmark tour's places: a fountain in the middle of the street,
    /// a café's sign on the left façade, the clock on the building across the far end, and the
    /// next landmark, 250 m on beyond it, out of sight. `disturbances`: where steel swings the compass.
    static func tour(disturbances: [SIMD3<Double>]) -> SceneGeoreference {
        var georeference = SceneGeoreference(origin: GeoCoordinate(latitude: 45.5550, longitude: 18.6950, altitude: 130), bearing: 35)
        georeference.places = [("fountain", SIMD3(0, 0, -45)), ("cafe-sign", SIMD3(-halfWidth + 0.1, 4, -25)),
                               ("clock", SIMD3(0, 11, streetEnds.far + 0.1)), ("next-landmark", SIMD3(60, 0, streetEnds.far - 250))]
        georeference.sensor.disturbances = disturbances
        return georeference
    }

    static let pavingPhotos = RoomScenes.floorPhotos
    static let facadePhotos = RoomScenes.wallPhotos

    /// Paving, the two façades and the building across the far end (at z = `far`), in painting
    /// order, built in blocks of at most 80 m (a building a block on each side, each its own
    /// tint; a texture for hundreds of metres at once would be an edge-on homography to the
    /// rasteriser); façades at `facadeTexel` metres per texel. Neighbouring blocks overlap by 2 cm
    /// so that no sky shows through their joint.
    static func street(seed: UInt64, far: Double, facadeTexel: Double = 0.03) throws -> [ScenePlane] {
        let width = 2 * halfWidth, margin = 0.05, overlap = 0.02
        let blocks = Int((streetEnds.near - far) / 80) + 1, block = (streetEnds.near - far) / Double(blocks)
        var paving = TextureMosaic.Style(photos: pavingPhotos, tile: 60)
        paving.zoom = 1.5...3.0
        paving.saturation = 0.25
        paving.contrast = 0.8
        paving.grout = 2
        let pavingTexel = 0.02
        var ground: [ScenePlane] = [], facades: [ScenePlane] = []
        for b in 0..<blocks {
            let middle = streetEnds.near - (Double(b) + 0.5) * block, length = block + overlap
            ground.append(ScenePlane(
                texture: try TextureMosaic.make(width: Int(((width + 2 * margin) / pavingTexel).rounded()),
                                                height: Int((length / pavingTexel).rounded()), style: paving, seed: seed + 10 * UInt64(b)),
                size: SIMD2(width + 2 * margin, length), pose: { _ in MarkerScenes.lying(at: SIMD3(0, 0, middle)) },
                gain: { _ in shade(SIMD3(0, 1, 0)) }))
            for (side, normal) in [(0, SIMD3<Double>(1, 0, 0)), (1, SIMD3(-1, 0, 0))] {
                let centre = SIMD3(-normal.x * halfWidth, facadeHeight / 2, middle)
                facades.append(try facade(normal: normal, centre: centre, width: length, texel: facadeTexel,
                                          tint: b + side, seed: seed + 10 * UInt64(b) + 1 + UInt64(side)))
            }
        }
        let end = try facade(normal: SIMD3(0, 0, 1), centre: SIMD3(0, facadeHeight / 2, far), width: width + 2 * margin,
                             texel: facadeTexel, tint: 2, seed: seed + 9)
        return ground + facades + [end]
    }

    /// A building's front facing `normal`, `width` metres wide and ``facadeHeight`` high, centred at
    /// `centre`: a mosaic of photographs in one of three tints.
    static func facade(normal: SIMD3<Double>, centre: SIMD3<Double>, width: Double, texel: Double, tint: Int, seed: UInt64) throws -> ScenePlane {
        var style = TextureMosaic.Style(photos: facadePhotos, tile: 90)
        style.zoom = 1.3...2.6
        style.saturation = 0.4
        style.tint = [SIMD3(1.08, 1.0, 0.9), SIMD3(0.92, 1.0, 1.06), SIMD3(1.0, 0.97, 0.95)][tint % 3]
        let pose = SceneBox.upright(facing: normal, at: centre)
        return ScenePlane(
            texture: try TextureMosaic.make(width: Int((width / texel).rounded()), height: Int((facadeHeight / texel).rounded()),
                                            style: style, seed: seed),
            size: SIMD2(width, facadeHeight), pose: { _ in pose }, gain: { _ in shade(normal) })
    }

    /// Brightness of a surface facing `normal` (scene axes) in daylight from above and the south-west.
    static func shade(_ normal: SIMD3<Double>) -> Double {
        0.75 + 0.25 * dot(normalize(normal), normalize(SIMD3(0.4, 1, 0.3)))
    }
}
