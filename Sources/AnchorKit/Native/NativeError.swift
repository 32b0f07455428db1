import AnchorKitCV

/// An error reported by the OpenCV layer (the C shim), with its one-line message.
public struct NativeError: Error, CustomStringConvertible, Equatable {
    /// What kind of failure.
    public enum Kind: Equatable, Sendable {
        case invalidArgument, io, decode, opencv, internalError
    }

    /// The failure's kind.
    public let kind: Kind
    /// The shim's one-line message.
    public let message: String

    public var description: String { message }

    /// Throws unless `status` is `AK_OK` (or `AK_END_OF_STREAM`, which the caller handles).
    @discardableResult
    package static func check(_ status: ak_status, _ context: @autoclosure () -> String = "") throws -> ak_status {
        if status == AK_OK || status == AK_END_OF_STREAM { return status }
        let kind: Kind
        switch status {
        case AK_ERR_ARGUMENT: kind = .invalidArgument
        case AK_ERR_IO: kind = .io
        case AK_ERR_DECODE: kind = .decode
        case AK_ERR_OPENCV: kind = .opencv
        default: kind = .internalError
        }
        // The shim prefixes its function's name ("ak_image_read: ..."): useful in a debugger,
        // noise in a user's error line.
        var detail = String(cString: ak_last_error())
        if detail.hasPrefix("ak_"), let colon = detail.range(of: ": ") { detail = String(detail[colon.upperBound...]) }
        let prefix = context()
        throw NativeError(kind: kind, message: prefix.isEmpty ? detail : "\(prefix): \(detail)")
    }
}

extension InputError {
    /// A shim failure about the file at `path`, without the path the shim repeats at the end.
    package init(_ path: String, native error: NativeError) {
        let suffix = ": " + path
        self.init(path, error.message.hasSuffix(suffix) ? String(error.message.dropLast(suffix.count)) : error.message)
    }
}

/// A shim parameter struct filled with the shim's defaults by its `ak_*_params_default`: the one
/// place a parameter set's defaults are written is the C side.
package func shimDefaults<Params>(_ empty: Params, _ fill: (UnsafeMutablePointer<Params>) -> Void) -> Params {
    var params = empty
    fill(&params)
    return params
}
