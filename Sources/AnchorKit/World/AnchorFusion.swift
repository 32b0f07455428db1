/// Keeps world-locked anchors still. A single view places a target precisely across its line of
/// sight but poorly along it (its distance comes from its apparent size). So each observation's
/// position counts fully across the viewing ray and only weakly along it, and the fused
/// position is the weighted least-squares point of all recent observations: seen from several
/// directions, the target is in effect triangulated. The rotation is their running average on
/// the manifold. Once settled, observations far from the estimate are set aside; several in a
/// row mean the target was moved, and a new estimate starts from them.
struct AnchorFusion {
    /// Weight of the along-the-ray error relative to the across-the-ray one: (σ_across/σ_along)²
    /// for a depth about ten times less certain than the position across the ray.
    var alongRayWeight = 0.01
    /// Set-aside limits once settled: distance across the ray and along it (metres), angle.
    var gateAcross = 0.04, gateAlong = 0.20
    var gateAngle = 4.0 * Double.pi / 180
    /// Set-aside observations in a row that mean the target moved.
    var movedAfter = 5
    /// Observations kept per anchor.
    var memory = 60
    /// Observations before the estimate is trusted (as a landmark, and for gating).
    var settledCount = 10

    private struct Sample { var position: SIMD3<Double>; var ray: SIMD3<Double> }
    private struct State {
        var samples: [Sample]
        var rotation: Matrix3
        var count: Int
        var rejected: [(Transform, Sample)] = []
        var estimate: SIMD3<Double>
    }
    private var states: [String: State] = [:]

    /// The fused `world_from_anchor` of an anchor seen at least ``settledCount`` times, or nil.
    func settled(_ identifier: String) -> Transform? {
        guard let s = states[identifier], s.count >= settledCount else { return nil }
        return Transform(rotation: s.rotation, translation: s.estimate)
    }

    /// The fused `world_from_anchor` after adding `worldFromAnchor`, seen by a camera whose
    /// centre is `cameraPosition` (world).
    mutating func fuse(_ identifier: String, _ worldFromAnchor: Transform, cameraPosition: SIMD3<Double>) -> Transform {
        let offset = worldFromAnchor.translation - cameraPosition
        let sample = Sample(position: worldFromAnchor.translation, ray: length(offset) > 1e-9 ? normalize(offset) : SIMD3(0, 0, 1))
        guard var s = states[identifier] else {
            states[identifier] = State(samples: [sample], rotation: worldFromAnchor.rotation, count: 1, estimate: sample.position)
            return worldFromAnchor
        }
        let d = sample.position - s.estimate
        let along = abs(dot(d, sample.ray)), across = length(d - sample.ray * dot(d, sample.ray))
        let far = s.count >= settledCount
            && (across > gateAcross || along > gateAlong
                || (s.rotation.transposed * worldFromAnchor.rotation).rotationAngle > gateAngle)
        if far {
            s.rejected.append((worldFromAnchor, sample))
            if s.rejected.count >= movedAfter {
                let recent = s.rejected
                s = State(samples: recent.map(\.1), rotation: recent.last!.0.rotation, count: recent.count, estimate: sample.position)
                s.estimate = solve(s.samples)
            }
            states[identifier] = s
            return Transform(rotation: s.rotation, translation: s.estimate)
        }
        s.rejected = []
        s.samples.append(sample)
        if s.samples.count > memory { s.samples.removeFirst() }
        s.count += 1
        let n = Double(min(s.count, memory))
        s.rotation = (s.rotation * Matrix3.exp((s.rotation.transposed * worldFromAnchor.rotation).log / n)).orthonormalized
        s.estimate = solve(s.samples)
        states[identifier] = s
        return Transform(rotation: s.rotation, translation: s.estimate)
    }

    /// argmin Σ (x − p)ᵀ W (x − p) with W = I − (1 − w) u uᵀ per sample (u its ray).
    private func solve(_ samples: [Sample]) -> SIMD3<Double> {
        var a = [SIMD3<Double>](repeating: .zero, count: 3), b = SIMD3<Double>.zero
        let k = 1 - alongRayWeight
        for s in samples {
            let u = s.ray
            for r in 0..<3 {
                var row = -k * u[r] * u
                row[r] += 1
                a[r] += row
                b[r] += dot(row, s.position)
            }
        }
        return Matrix3(rows: a[0], a[1], a[2]).inverse.map { $0 * b } ?? samples.last!.position
    }
}
