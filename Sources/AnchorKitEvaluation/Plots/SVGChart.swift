import Foundation

/// A line chart written as SVG (no display or plotting library needed): axes with round ticks,
/// one polyline per series (a NaN point breaks its line), optional point marks, a legend.
public struct SVGChart {
    /// One named line (or set of marks) of the chart, in data units.
    public struct Series {
        public var name: String
        public var points: [SIMD2<Double>]
        /// Draw the points as dots instead of joining them.
        public var dotted = false
        /// A CSS colour; nil takes the next of ``palette``.
        public var colour: String?
        public var width = 1.5

        public init(name: String, points: [SIMD2<Double>], dotted: Bool = false, colour: String? = nil, width: Double = 1.5) {
            self.name = name; self.points = points; self.dotted = dotted; self.colour = colour; self.width = width
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var series: [Series] = []
    /// One unit is as long on both axes (maps, top views).
    public var equalAspect = false
    /// The y range shown; nil fits the data. Points beyond it are drawn at its edge.
    public var yRange: ClosedRange<Double>?

    /// Colours for series that name none (colour-blind-safe, Okabe and Ito).
    public static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]

    public init(title: String, xLabel: String, yLabel: String) {
        self.title = title; self.xLabel = xLabel; self.yLabel = yLabel
    }

    /// The chart as an SVG document `width` x `height` pixels.
    public func svg(width: Int = 760, height: Int = 440) -> String {
        let left = 64.0, right = 16.0, top = 36.0, bottom = 48.0 + 18.0 * Double((series.count + 2) / 3)
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let all = series.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        var xs = Self.span(all.map(\.x)), ys = yRange.map { ($0.lowerBound, $0.upperBound) } ?? Self.span(all.map(\.y))
        if equalAspect {
            // Widen the shorter span so that a unit has one length on both axes.
            let perUnit = min(plotW / (xs.1 - xs.0), plotH / (ys.1 - ys.0))
            let cx = (xs.0 + xs.1) / 2, cy = (ys.0 + ys.1) / 2
            xs = (cx - plotW / perUnit / 2, cx + plotW / perUnit / 2)
            ys = (cy - plotH / perUnit / 2, cy + plotH / perUnit / 2)
        }
        func px(_ x: Double) -> Double { left + (x - xs.0) / (xs.1 - xs.0) * plotW }
        func py(_ y: Double) -> Double { top + plotH - (min(max(y, ys.0), ys.1) - ys.0) / (ys.1 - ys.0) * plotH }
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }

        var out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" font-family=\"sans-serif\" font-size=\"12\">",
                   "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
                   "<text x=\"\(n(left))\" y=\"22\" font-size=\"15\" font-weight=\"bold\">\(escaped(title))</text>"]
        for x in Self.ticks(xs.0, xs.1) {
            out.append("<line x1=\"\(n(px(x)))\" y1=\"\(n(top))\" x2=\"\(n(px(x)))\" y2=\"\(n(top + plotH))\" stroke=\"#e4e4e4\"/>")
            out.append("<text x=\"\(n(px(x)))\" y=\"\(n(top + plotH + 16))\" text-anchor=\"middle\">\(Self.label(x))</text>")
        }
        for y in Self.ticks(ys.0, ys.1) {
            out.append("<line x1=\"\(n(left))\" y1=\"\(n(py(y)))\" x2=\"\(n(left + plotW))\" y2=\"\(n(py(y)))\" stroke=\"#e4e4e4\"/>")
            out.append("<text x=\"\(n(left - 6))\" y=\"\(n(py(y) + 4))\" text-anchor=\"end\">\(Self.label(y))</text>")
        }
        out.append("<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotW))\" height=\"\(n(plotH))\" fill=\"none\" stroke=\"#888\"/>")
        out.append("<text x=\"\(n(left + plotW / 2))\" y=\"\(n(top + plotH + 34))\" text-anchor=\"middle\">\(escaped(xLabel))</text>")
        out.append("<text transform=\"translate(14 \(n(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\">\(escaped(yLabel))</text>")
        for (i, s) in series.enumerated() {
            let colour = s.colour ?? Self.palette[i % Self.palette.count]
            // Past the palette, colours repeat: those lines are dashed.
            let dash = s.colour == nil && i >= Self.palette.count ? " stroke-dasharray=\"6 3\"" : ""
            if s.dotted {
                for p in s.points where p.x.isFinite && p.y.isFinite {
                    out.append("<circle cx=\"\(n(px(p.x)))\" cy=\"\(n(py(p.y)))\" r=\"\(n(s.width))\" fill=\"\(colour)\"/>")
                }
            } else {
                // Runs of finite points, each one polyline.
                var run: [String] = []
                func flush() {
                    if run.count > 1 {
                        out.append("<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(n(s.width))\"\(dash) stroke-linejoin=\"round\" points=\"\(run.joined(separator: " "))\"/>")
                    } else if let only = run.first {
                        let xy = only.split(separator: ",")
                        out.append("<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"\(n(s.width))\" fill=\"\(colour)\"/>")
                    }
                    run.removeAll()
                }
                for p in s.points {
                    if p.x.isFinite && p.y.isFinite { run.append("\(n(px(p.x))),\(n(py(p.y)))") } else { flush() }
                }
                flush()
            }
            let lx = left + Double(i % 3) * plotW / 3, ly = top + plotH + 52 + 18 * Double(i / 3)
            out.append("<line x1=\"\(n(lx))\" y1=\"\(n(ly - 7))\" x2=\"\(n(lx + 16))\" y2=\"\(n(ly - 7))\" stroke=\"\(colour)\" stroke-width=\"4\"\(dash)/>")
            out.append("<text x=\"\(n(lx + 20))\" y=\"\(n(ly - 3))\">\(escaped(s.name))</text>")
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// The data's range with a little room (a unit range around a single value; 0...1 for none).
    static func span(_ values: [Double]) -> (Double, Double) {
        guard let lo = values.min(), let hi = values.max() else { return (0, 1) }
        if hi - lo < 1e-12 { return (lo - 0.5, hi + 0.5) }
        let pad = 0.04 * (hi - lo)
        return (lo - pad, hi + pad)
    }

    /// Round tick values (1, 2 or 5 times a power of ten apart) inside lo...hi, about 6 of them.
    static func ticks(_ lo: Double, _ hi: Double) -> [Double] {
        let raw = (hi - lo) / 6, power = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
        return stride(from: (lo / step).rounded(.up) * step, through: hi, by: step).map { abs($0) < step * 1e-9 ? 0 : $0 }
    }

    /// A tick label without trailing zeros.
    static func label(_ v: Double) -> String {
        var s = String(format: "%.3f", v)
        while s.contains(".") && (s.hasSuffix("0") || s.hasSuffix(".")) { s.removeLast() }
        return s
    }
}
