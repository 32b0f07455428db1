import Foundation
import AnchorKit

extension CameraIntrinsics {
    /// Reads intrinsics from `camera.json` (../shared/FORMATS.md) or from an OpenCV calibration
    /// YAML file (`camera_matrix`, `distortion_coefficients`, optional `image_width`,
    /// `image_height`). YAML files without an image size take `imageSize` (e.g. the first
    /// frame's); without either, loading fails.
    public static func load(contentsOf path: String, imageSize: (width: Int, height: Int)? = nil) throws -> CameraIntrinsics {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        let text = String(decoding: data, as: UTF8.self)
        do {
            if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                return try JSONDecoder().decode(CameraIntrinsics.self, from: data)
            }
            return try parseOpenCVYAML(text, imageSize: imageSize)
        } catch let e as IntrinsicsError {
            throw InputError(path, e.message)
        } catch let e as DecodingError {
            throw InputError(path, "malformed camera JSON: \(JSONProblem.describe(e))")
        } catch let e as InputError {
            throw InputError(path, e.problem)
        }
    }

    /// Parses the subset of OpenCV's FileStorage YAML that calibration files use.
    static func parseOpenCVYAML(_ text: String, imageSize: (width: Int, height: Int)?) throws -> CameraIntrinsics {
        func matrix(_ key: String) -> [Double]? {
            guard let keyRange = text.range(of: "\(key):") else { return nil }
            let rest = text[keyRange.upperBound...]
            guard let open = rest.range(of: "data:"), let lb = rest[open.upperBound...].firstIndex(of: "["),
                  let rb = rest[lb...].firstIndex(of: "]") else { return nil }
            let numbers = rest[rest.index(after: lb)..<rb].split(whereSeparator: { $0 == "," || $0.isWhitespace })
            let values = numbers.compactMap { Double($0) }
            return values.count == numbers.count ? values : nil
        }
        func scalar(_ key: String) -> Int? {
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("\(key):") {
                return Int(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces))
            }
            return nil
        }
        guard let k = matrix("camera_matrix"), k.count == 9 else {
            throw InputError("", "not camera JSON and no OpenCV camera_matrix (3x3) found")
        }
        let dist = matrix("distortion_coefficients") ?? []
        let width = scalar("image_width") ?? imageSize?.width
        let height = scalar("image_height") ?? imageSize?.height
        guard let width, let height else {
            throw InputError("", "no image_width/image_height in the calibration file and no frame to take them from")
        }
        // OpenCV's richer models (k4-k6 of the rational model, thin prism s1-s4, tilt) append
        // coefficients; dropping non-zero ones would silently mis-place every pixel.
        guard dist.dropFirst(5).allSatisfy({ $0 == 0 }) else {
            throw InputError("", "distortion_coefficients has \(dist.count) coefficients with non-zero ones past k3 (OpenCV's rational, thin-prism or tilted model): only k1, k2, p1, p2, k3 are supported; recalibrate without CALIB_RATIONAL_MODEL, CALIB_THIN_PRISM_MODEL or CALIB_TILTED_MODEL")
        }
        return try CameraIntrinsics(width: width, height: height, fx: k[0], fy: k[4], cx: k[2], cy: k[5],
                                    distortion: Array(dist.prefix(5)))
    }
}

/// Turns `DecodingError`s into one-line explanations naming the key path.
enum JSONProblem {
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "" : " at \(p)"
        }
        switch error {
        case .keyNotFound(let key, let c): return "missing key \"\(key.stringValue)\"\(path(c))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return "\(c.debugDescription.trimmingCharacters(in: .punctuationCharacters))\(path(c))"
        case .dataCorrupted(let c):
            if let underlying = c.underlyingError as? CustomStringConvertible, c.codingPath.isEmpty {
                return "not valid JSON (\(underlying.description.prefix(120)))"
            }
            return "\(c.debugDescription.trimmingCharacters(in: .punctuationCharacters))\(path(c))"
        @unknown default: return "\(error)"
        }
    }
}
