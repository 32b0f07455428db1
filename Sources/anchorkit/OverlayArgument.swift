import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitRendering

/// Parses `render`'s overlay arguments: `NAME=CONTENT[:OPTION=VALUE...]` for `--overlay` and
/// `FRAME@X,Y=CONTENT[:OPTION=VALUE...]` for `--tap`.
///
/// CONTENT is a picture file (PNG with alpha, JPEG, ...) or a card `#RRGGBB[AA]`. Options:
/// `width=M`, `height=M` (metres), `scale=S`, `layout=center|left|right|above|below`, `margin=M`,
/// `offset=X,Y,Z` (metres in the anchor's frame), `rotation=DEGREES`, `opacity=0..1`, and for
/// cards `label=TEXT` and `aspect=W/H`.
enum OverlayArgument {
    static let help = "CONTENT is a picture (PNG with alpha, JPEG) or a card #RRGGBB[AA]; options: width=M, height=M, scale=S, layout=center|left|right|above|below, margin=M, offset=X,Y,Z, rotation=DEG, opacity=0..1, label=TEXT and aspect=W/H (cards)"

    /// `NAME=CONTENT[:options]` → the anchor name and the overlay.
    static func anchored(_ argument: String) throws -> PlacedOverlay {
        let (name, overlay) = try split(argument, flag: "--overlay")
        guard !name.isEmpty else { throw InputError("--overlay \(argument)", "give NAME=CONTENT, NAME an anchor's name or id") }
        return PlacedOverlay(overlay, on: .anchor(name))
    }

    /// `FRAME@X,Y=CONTENT[:options]` → a tap placement.
    static func tap(_ argument: String) throws -> PlacedOverlay {
        let (place, overlay) = try split(argument, flag: "--tap")
        let parts = place.split(separator: "@", omittingEmptySubsequences: false)
        let xy = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Double($0) } : []
        guard parts.count == 2, let frame = Int(parts[0]), frame >= 0, xy.count == 2, xy.allSatisfy(\.isFinite) else {
            throw InputError("--tap \(argument)", "give FRAME@X,Y=CONTENT, e.g. 120@320,400=logo.png")
        }
        return PlacedOverlay(overlay, on: .tap(frame: frame, pixel: SIMD2(xy[0], xy[1])))
    }

    /// The picture file an `--overlay` or `--tap` argument names, if it names one (an input that
    /// must not be overwritten).
    static func picture(in argument: String) -> String? {
        guard let content = fields(of: argument)?.fields[0], !content.isEmpty, !content.hasPrefix("#") else { return nil }
        return content
    }

    /// The part before the first `=`, and the `:`-separated fields after it (CONTENT first).
    private static func fields(of argument: String) -> (key: String, fields: [String])? {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        return (String(argument[..<equals]),
                argument[argument.index(after: equals)...].split(separator: ":", omittingEmptySubsequences: false).map(String.init))
    }

    private static func split(_ argument: String, flag: String) throws -> (String, Overlay) {
        guard let (key, fields) = fields(of: argument) else {
            throw InputError("\(flag) \(argument)", "expected ...=CONTENT[:OPTION=VALUE...]")
        }
        var options: [String: String] = [:]
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { throw InputError("\(flag) \(argument)", "option \"\(field)\" is not KEY=VALUE") }
            options[pair[0]] = pair[1]
        }
        func number(_ key: String, _ valid: (Double) -> Bool = { _ in true }) throws -> Double? {
            guard let text = options.removeValue(forKey: key) else { return nil }
            guard let v = Double(text), v.isFinite, valid(v) else { throw InputError("\(flag) \(argument)", "bad \(key) \"\(text)\"") }
            return v
        }
        let content: OverlayContent
        let source = fields[0]
        if source.hasPrefix("#") {
            guard let color = Color(hex: source) else { throw InputError("\(flag) \(argument)", "a card colour is #RRGGBB or #RRGGBBAA") }
            var aspect = 1.0
            if let text = options.removeValue(forKey: "aspect") {
                let ratio = text.split(separator: "/").compactMap { Double($0) }
                guard (ratio.count == 1 || ratio.count == 2), ratio.allSatisfy({ $0 > 0 && $0.isFinite }) else {
                    throw InputError("\(flag) \(argument)", "aspect is W/H or a number, not \"\(text)\"")
                }
                aspect = ratio.count == 2 ? ratio[0] / ratio[1] : ratio[0]
            }
            content = .card(color: color, label: options.removeValue(forKey: "label"), aspectRatio: aspect)
        } else {
            guard !source.isEmpty else { throw InputError("\(flag) \(argument)", "no content after =") }
            content = .picture(try Image(contentsOf: source, channels: 4))
        }
        var overlay = Overlay(content: content)
        overlay.width = try number("width") { $0 > 0 }
        overlay.height = try number("height") { $0 > 0 }
        overlay.scale = try number("scale") { $0 > 0 } ?? 1
        overlay.margin = try number("margin") ?? overlay.margin
        overlay.rotation = (try number("rotation") ?? 0) * .pi / 180
        overlay.opacity = try number("opacity") { $0 >= 0 && $0 <= 1 } ?? 1
        if let text = options.removeValue(forKey: "layout") {
            guard let layout = OverlayLayout(rawValue: text) else {
                throw InputError("\(flag) \(argument)", "layout is one of \(OverlayLayout.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            overlay.layout = layout
        }
        if let text = options.removeValue(forKey: "offset") {
            let v = text.split(separator: ",").compactMap { Double($0) }
            guard v.count == 3, v.allSatisfy(\.isFinite) else { throw InputError("\(flag) \(argument)", "offset is X,Y,Z in metres") }
            overlay.offset = SIMD3(v[0], v[1], v[2])
        }
        if let unknown = options.keys.sorted().first {
            throw InputError("\(flag) \(argument)", "unknown option \"\(unknown)\" (\(source.hasPrefix("#") || unknown != "label" ? "" : "label is for cards; ")see --help)")
        }
        return (key, overlay)
    }
}
