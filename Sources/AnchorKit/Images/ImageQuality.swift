/// How well a picture will work as a reference image, like ARCore's `arcoreimg eval-img`: a
/// score from 0 (useless) to 100 with the reasons that lowered it.
package struct ImageQuality: Sendable {
    /// 0...100; 75 or more tracks well.
    public var score: Int
    /// Why the score is not 100, most serious first.
    public var reasons: [String]
    /// ORB features found on the working copy.
    public var featureCount: Int
    /// Share of the 4x4 grid's cells holding at least 2 % of the features (1 = evenly spread).
    public var spread: Double
    /// Share of features with a near-identical twin elsewhere in the picture (a repeated
    /// pattern makes matches ambiguous).
    public var repetition: Double
    /// Standard deviation of the gray levels (0...255).
    public var contrast: Double

    /// Evaluates a reference (its working copy and features).
    public static func evaluate(_ reference: ReferenceImage, originalSize: (width: Int, height: Int)) throws -> ImageQuality {
        // The working copy's own features: the reference's set also holds the half- and
        // quarter-size copies', which would count as twins of themselves.
        let image = try reference.image
        let features = try FeatureSet(image: image)
        let points = features.points
        // Spread over a 4x4 grid.
        var cells = [Int](repeating: 0, count: 16)
        for p in points {
            let cx = min(3, max(0, Int(4 * p.x / Float(image.width)))), cy = min(3, max(0, Int(4 * p.y / Float(image.height))))
            cells[cy * 4 + cx] += 1
        }
        let spread = points.isEmpty ? 0 : Double(cells.filter { Double($0) >= 0.02 * Double(points.count) }.count) / 16
        // Repetition: each feature's nearest other feature in the same picture (the best match
        // is the feature itself, so the runner-up is the nearest other).
        let selfMatches = try features.match(against: features)
        let twins = selfMatches.filter { $0.secondDistance < 40 }.count
        let repetition = selfMatches.isEmpty ? 0 : Double(twins) / Double(selfMatches.count)
        let contrast = image.withPixels { base, stride -> Double in
            var sum = 0.0, squares = 0.0
            for y in 0..<image.height { for x in 0..<image.width { let v = Double(base[y * stride + x]); sum += v; squares += v * v } }
            let n = Double(image.width * image.height)
            return (max(0, squares / n - (sum / n) * (sum / n))).squareRoot()
        }

        var penalties: [(Double, String)] = []
        if points.count < 300 {
            penalties.append((45 * Double(300 - points.count) / 300, "too few features (\(points.count); 300 or more track well)"))
        }
        if spread < 0.75 {
            penalties.append(((0.75 - spread) * 80, "features bunched in one area (\(Int(spread * 16)) of 16 regions have features)"))
        }
        if repetition > 0.1 {
            penalties.append((min(40, (repetition - 0.1) * 80), "repetitive pattern (\(Int(repetition * 100)) % of features have a twin)"))
        }
        if contrast < 40 { penalties.append(((40 - contrast) * 0.75, "low contrast (gray-level deviation \(Int(contrast)); 40 or more is good)")) }
        if min(originalSize.width, originalSize.height) < 300 {
            penalties.append((20, "too small (\(originalSize.width)x\(originalSize.height) pixels; at least 300 a side)"))
        }
        penalties.sort { $0.0 > $1.0 }
        let score = Int(max(0, min(100, 100 - penalties.map(\.0).reduce(0, +))).rounded())
        return ImageQuality(score: score, reasons: penalties.map(\.1), featureCount: points.count, spread: spread,
                            repetition: repetition, contrast: contrast)
    }
}

extension ReferenceImageSet {
    /// Pairs of references alike enough to be confused: many distinctive matches between them
    /// that one homography explains. Checked pairwise (brute force), so for sets of up to
    /// `maximumSetSize` references.
    public func lookAlikes(minimumInliers: Int = 40, maximumSetSize: Int = 60) throws -> [(String, String, Int)] {
        guard images.count <= maximumSetSize else { return [] }
        var pairs: [(String, String, Int)] = []
        for i in images.indices {
            for j in images.indices where j > i {
                let a = images[i], b = images[j]
                let matches = try a.features.match(against: b.features).filter { $0.isDistinctive(ratio: 0.75) }
                guard matches.count >= minimumInliers,
                      let h = try Homography.estimate(from: matches.map { a.features.points[$0.query] },
                                                      to: matches.map { b.features.points[$0.train] }),
                      h.inlierCount >= minimumInliers else { continue }
                pairs.append((a.name, b.name, h.inlierCount))
            }
        }
        return pairs
    }
}
