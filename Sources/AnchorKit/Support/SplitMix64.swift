import Foundation

/// A small deterministic random generator (SplitMix64), so generated data is identical on
/// every machine.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A uniform number in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// A standard normal number (Box-Muller, from two uniform draws).
    public mutating func nextGaussian() -> Double {
        let u = max(nextUnit(), 1e-300), v = nextUnit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
