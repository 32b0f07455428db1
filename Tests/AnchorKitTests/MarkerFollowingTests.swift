import Testing
@testable import AnchorKit

/// Following a known marker from predicted corners (`MarkerDetector.follow`, marker_refinement.cpp
/// over template_align.cpp) on markers rendered through a known homography with sensor noise and
/// motion blur (`MarkerTemplateRefinementTests.render`), so the true corners are exact.
@Suite("Marker following")
struct MarkerFollowingTests {
    typealias Rendered = MarkerTemplateRefinementTests

    /// Small (2 px modules), foreshortened and motion-blurred: the markers detection misses.
    static let small = Rendered.Case(name: "16 px, tilted, 3 px motion blur", side: 16, tilt: 0.3, motion: 3, noise: 2, tolerance: 0.5)
    static let large = Rendered.Case(name: "60 px, 4 px motion blur", side: 60, tilt: 0.1, motion: 4, noise: 2, tolerance: 0.3)

    static func shifted(_ corners: [SIMD2<Double>], by shift: SIMD2<Double>) -> [SIMD2<Double>] { corners.map { $0 + shift } }

    /// From predictions off by up to a module and a half, the marker is found again within the
    /// case's tolerance, with a correlation above the tracker's threshold.
    @Test(arguments: [small, large])
    func followsFromAnOffPrediction(_ c: Rendered.Case) throws {
        let scene = try Rendered.scene(c)
        let detector = try MarkerDetector(dictionary: Rendered.dictionary)
        for shift in [SIMD2(2.0, -1.5), SIMD2(-2.5, 0.5), SIMD2(0.5, 2.5)] {
            let followed = try #require(try detector.follow(id: Rendered.id, from: Self.shifted(scene.corners, by: shift), in: scene.image),
                                        "\(c.name), shift \(shift)")
            let error = Rendered.worst(followed.corners, scene.corners)
            print("following, \(c.name), shift \(shift): worst corner error \(error) px, correlation \(followed.correlation)")
            #expect(error < c.tolerance)
            #expect(followed.correlation >= MarkerTracker.Parameters().followingCorrelation!)
        }
    }

    /// Another id's picture at the true place correlates below the tracker's threshold: following
    /// does not turn one marker into another.
    @Test func anotherIdDoesNotCorrelate() throws {
        let scene = try Rendered.scene(Self.large)
        let detector = try MarkerDetector(dictionary: Rendered.dictionary)
        for other in [Rendered.id + 1, 0, 200] {
            let correlation = try detector.follow(id: other, from: scene.corners, in: scene.image)?.correlation ?? -1
            #expect(correlation < MarkerTracker.Parameters().followingCorrelation!, "id \(other): \(correlation)")
        }
    }

    /// A marker partly outside the image (about 40 % of it cut off) is still followed; one mostly
    /// outside is not.
    @Test func followsAMarkerLeavingTheImage() throws {
        let c = Self.large
        let corners = Rendered.truth(c, centre: SIMD2(8.3, 70.4))
        let scene = try Rendered.render(c, corners: corners, width: 140, height: 140)
        let detector = try MarkerDetector(dictionary: Rendered.dictionary)
        let followed = try #require(try detector.follow(id: Rendered.id, from: Self.shifted(corners, by: SIMD2(1.5, -1)), in: scene.image))
        #expect(Rendered.worst(followed.corners, corners) < 0.5)
        #expect(followed.correlation >= MarkerTracker.Parameters().followingCorrelation!)

        let outside = Rendered.truth(c, centre: SIMD2(-22, 70.4))
        let gone = try Rendered.render(c, corners: outside, width: 140, height: 140)
        #expect(try detector.follow(id: Rendered.id, from: outside, in: gone.image) == nil)
    }

    @Test func badArgumentsAreOneLineErrors() throws {
        let scene = try Rendered.scene(Self.large)
        let detector = try MarkerDetector(dictionary: Rendered.dictionary)
        expectOneLineError(containing: ["4 corners"]) { _ = try detector.follow(id: Rendered.id, from: Array(scene.corners.prefix(2)), in: scene.image) }
        expectOneLineError(containing: ["250"]) { _ = try detector.follow(id: 250, from: scene.corners, in: scene.image) }
    }
}
