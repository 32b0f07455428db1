import Foundation
import AnchorKit

/// The synthetic outdoor sequences, for geo tracking (issue 26): a handheld 640x480 camera
/// carried down a city street, with the places of a landmark tour given by coordinate.
///
/// The street (scene coordinates, metres, +y up): 16 m between façades (x = ±8), running along
/// -z from z = +10 to z = -150, paved, the façades 14 m high, a building across its far end.
/// Façades and paving are mosaics of photographs (``TextureMosaic``) at 3 and 2 cm per texel,
/// shaded by their orientation under a light from the south-west.
public enum OutdoorScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["street-walk"]

    /// Builds the named scene; `frameCount` overrides its default length (1800 frames, 60 s).
    public static func scene(named name: String, frameCount: Int? = nil) throws -> SyntheticScene {
        switch name {
        case "street-walk": return try walk(frameCount: frameCount ?? 1800)
        default: throw InputError(name, "unknown scene (known: \(names.joined(separator: ", ")))")
        }
    }

    /// The street's half width (to the façades), length and façade height, metres.
    static let halfWidth = 8.0, streetEnds = (near: 10.0, far: -150.0), facadeHeight = 14.0

    // MARK: The scenes

    /// A 60 s walk on the right-hand pavement at 1.4 m/s (84 m), eye 1.55 m high, the view turning
    /// between the façades across the street and the way ahead (±30°), pitched 8–14° down.
    static func walk(frameCount n: Int) throws -> SyntheticScene {
        let stops = stride(from: 0.0, through: 60, by: 6).enumerated().map { k, t in
            RoomScenes.Stop(position: SIMD3(4.0 + 0.4 * sin(0.7 * Double(k)), 1.55, 6 - 1.4 * t),
                            heading: (k % 2 == 0 ? 0.45 : -0.35) * (k % 3 == 0 ? 0.5 : 1), pitch: -8 - 6 * Double(k % 2))
        }
        let path = RoomScenes.walkPath(seed: 91, stops: stops, duration: 60)
        var scene = SyntheticScene(name: "street-walk", camera: MarkerScenes.standardCamera(), frameCount: n,
                                   planes: try street(seed: 9100), path: path)
        scene.exposure = { _ in 1.0 / 500 }  // daylight: a short shutter
        scene.instantsPerExposure = 2
        scene.background = 200  // sky
        scene.inertialSensor = InertialSensor()  // a phone's: world tracking is metric from it
        scene.georeference = tour(disturbances: [SIMD3(4, 0, -20), SIMD3(4, 0, -62)])
        scene.seed = 91
        return scene
    }

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

    /// Paving, the two façades and the building across the far end, in painting order.
    static func street(seed: UInt64) throws -> [ScenePlane] {
        let length = streetEnds.near - streetEnds.far, middle = (streetEnds.near + streetEnds.far) / 2
        let width = 2 * halfWidth, margin = 0.05
        var paving = TextureMosaic.Style(photos: pavingPhotos, tile: 60)
        paving.zoom = 1.5...3.0
        paving.saturation = 0.25
        paving.contrast = 0.8
        paving.grout = 2
        let pavingTexel = 0.02
        let ground = ScenePlane(
            texture: try TextureMosaic.make(width: Int(((width + 2 * margin) / pavingTexel).rounded()),
                                            height: Int((length / pavingTexel).rounded()), style: paving, seed: seed),
            size: SIMD2(width + 2 * margin, length), pose: { _ in MarkerScenes.lying(at: SIMD3(0, 0, middle)) },
            gain: { _ in shade(SIMD3(0, 1, 0)) }, surface: .init(name: "ground", alignment: .horizontal, extent: SIMD2(width, length)))
        var planes = [ground]
        let facades: [(String, SIMD3<Double>, SIMD3<Double>, Double, Double)] = [
            ("facade-left", SIMD3(1, 0, 0), SIMD3(-halfWidth, facadeHeight / 2, middle), length, 0),
            ("facade-right", SIMD3(-1, 0, 0), SIMD3(halfWidth, facadeHeight / 2, middle), length, 1),
            ("facade-end", SIMD3(0, 0, 1), SIMD3(0, facadeHeight / 2, streetEnds.far), width + 2 * margin, 2),
        ]
        for (name, normal, centre, width, k) in facades {
            var style = TextureMosaic.Style(photos: facadePhotos, tile: 90)
            style.zoom = 1.3...2.6
            style.saturation = 0.4
            style.tint = [SIMD3(1.08, 1.0, 0.9), SIMD3(0.92, 1.0, 1.06), SIMD3(1.0, 0.97, 0.95)][Int(k)]
            let texel = 0.03
            let pose = SceneBox.upright(facing: normal, at: centre)
            planes.append(ScenePlane(
                texture: try TextureMosaic.make(width: Int((width / texel).rounded()), height: Int((facadeHeight / texel).rounded()),
                                                style: style, seed: seed + 1 + UInt64(k)),
                size: SIMD2(width, facadeHeight), pose: { _ in pose }, gain: { _ in shade(normal) },
                surface: .init(name: name, alignment: .vertical)))
        }
        return planes
    }

    /// Brightness of a surface facing `normal` (scene axes) in daylight from above and the south-west.
    static func shade(_ normal: SIMD3<Double>) -> Double {
        0.75 + 0.25 * dot(normalize(normal), normalize(SIMD3(0.4, 1, 0.3)))
    }
}
