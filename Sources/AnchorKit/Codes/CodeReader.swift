import AnchorKitCV

/// One 2-D code read in an image.
public struct CodeDetection: Equatable, Sendable {
    public var format: CodeFormat
    /// What the code holds; nil when it was located but not decoded (OpenCV's `QRCodeDetector` in a
    /// build without quirc, such as Debian's).
    public var payload: CodePayload?
    /// Corners in pixels: TL, TR, BR, BL of the symbol in its own orientation (a QR code's finder
    /// patterns at TL, TR and BL), quiet zone excluded.
    public var corners: [SIMD2<Double>]
    /// QR codes: modules per side (21, 25, ... 177) when measured; nil otherwise.
    public var modules: Int?
    /// Whether the corners are sub-pixel ones from the finder patterns (QR codes of at least about
    /// 2 px a module), rather than the decoder's whole pixels.
    public var isRefined: Bool
}

/// Reads QR codes (and Micro QR, Data Matrix, Aztec) in images: zxing-cpp (Debian's libzxing),
/// with QR corners refined from the finder patterns' corners; or OpenCV's `QRCodeDetector`, a peer
/// for benchmarks. Not thread-safe: one reader per thread.
public final class CodeReader {
    /// Which library reads.
    public enum Library: Sendable {
        /// zxing-cpp: every ``CodeFormat``.
        case zxing
        /// OpenCV 4.6's `QRCodeDetector.detectAndDecodeMulti`: QR codes only, its own corners. It
        /// decodes only where OpenCV was built with quirc (Debian's is not): otherwise it locates.
        case opencv
        /// OpenCV contrib's `wechat_qrcode.WeChatQRCode`, without its CNN models: QR codes only.
        case opencvWeChat
    }

    /// How codes are read.
    public struct Parameters: Sendable, Equatable {
        public var library = Library.zxing
        /// The symbologies read (zxing only; OpenCV's readers read QR codes).
        public var formats: Set<CodeFormat> = Set(CodeFormat.allCases)
        /// zxing's `tryHarder`: more scan lines and retries, for small and blurred codes.
        public var triesHarder = true
        /// QR corners refined to sub-pixel accuracy from the finder patterns (zxing only).
        public var refinesQRCorners = true
        public init() {}
    }

    public let parameters: Parameters
    private let handle: OpaquePointer
    private var buffer = Array(repeating: ak_code_detection(), count: 16)

    public init(parameters: Parameters = Parameters()) throws {
        var native = ak_code_params()
        ak_code_params_default(&native)
        switch parameters.library {
        case .zxing: native.reader = AK_CODE_READER_ZXING
        case .opencv: native.reader = AK_CODE_READER_OPENCV
        case .opencvWeChat: native.reader = AK_CODE_READER_OPENCV_WECHAT
        }
        native.formats = parameters.library != .zxing ? Int32(AK_CODE_QR.rawValue)
            : parameters.formats.reduce(Int32(0)) { $0 | Int32(Self.nativeFormat($1).rawValue) }
        native.try_harder = parameters.triesHarder ? 1 : 0
        native.refine_qr = parameters.refinesQRCorners ? 1 : 0
        var out: OpaquePointer?
        try NativeError.check(ak_code_reader_create(&native, &out), "code reader")
        handle = out!
        self.parameters = parameters
    }

    deinit { ak_code_reader_free(handle) }

    /// Where this reader's time went since it was made: decoding, QR corners, following.
    package var profile: StageProfile {
        var p = ak_code_profile()
        ak_code_reader_profile(handle, &p)
        var profile = StageProfile()
        profile.add(.codeReading, seconds: p.reading, calls: Int(p.calls))
        profile.add(.codeCorners, seconds: p.refinement, calls: Int(p.calls))
        profile.add(.codeFollowing, seconds: p.following, calls: Int(p.calls))
        return profile
    }

    /// The codes in `image`, ordered by their first corner (row-major).
    public func read(_ image: Image) throws -> [CodeDetection] {
        var count: Int32 = 0
        while true {
            let capacity = Int32(buffer.count)
            try NativeError.check(ak_code_reader_read(handle, image.handle, &buffer, capacity, &count), "code reading")
            if count <= capacity { break }
            buffer = Array(repeating: ak_code_detection(), count: Int(count))
        }
        var length: Int32 = 0
        let base = ak_code_reader_payloads(handle, &length)
        return buffer.prefix(Int(count)).compactMap { d in
            guard let format = Self.format(d.format) else { return nil }
            let bytes = base.map { Array(UnsafeBufferPointer(start: $0 + Int(d.payload_offset), count: Int(d.payload_length))) } ?? []
            let payload: CodePayload? = d.decoded == 0 ? nil : d.is_text != 0 ? .text(String(decoding: bytes, as: UTF8.self)) : .bytes(bytes)
            return CodeDetection(format: format, payload: payload, corners: Self.points(d.corners),
                                 modules: d.modules > 0 ? Int(d.modules) : nil, isRefined: d.refined != 0)
        }
    }

    /// A QR code this reader read before, holding `payload`, followed into `image` from `predicted`
    /// corners (TL, TR, BR, BL px), for a frame where it could not be read (blurred, partly hidden):
    /// its picture as last read is aligned to the image from there, coarse to fine (reaching a few
    /// modules). Returns the corners and the Pearson correlation (-1...1) of the aligned picture with
    /// the image, for the caller to judge; nil when the code was never read with its modules measured
    /// (codes other than QR, or under ~2 px a module) or the alignment fails.
    public func followQRCode(_ payload: CodePayload, from predicted: [SIMD2<Double>], in image: Image) throws
        -> (corners: [SIMD2<Double>], correlation: Double)? {
        guard predicted.count == 4 else { throw NativeError(kind: .invalidArgument, message: "a code has 4 corners, got \(predicted.count)") }
        let flat = predicted.flatMap { [Float($0.x), Float($0.y)] }
        var corners = [Float](repeating: 0, count: 8)
        var correlation = Double.nan
        // The bytes as read: text as the reader converted it (UTF-8), bytes as they were.
        let bytes = payload.bytes
        try NativeError.check(bytes.withUnsafeBufferPointer {
            ak_code_reader_follow(handle, image.handle, $0.baseAddress, Int32($0.count), flat, &corners, &correlation)
        }, "QR following")
        guard correlation.isFinite else { return nil }
        return ((0..<4).map { SIMD2(Double(corners[2 * $0]), Double(corners[2 * $0 + 1])) }, correlation)
    }

    private static func points(_ c: (Float, Float, Float, Float, Float, Float, Float, Float)) -> [SIMD2<Double>] {
        [SIMD2(Double(c.0), Double(c.1)), SIMD2(Double(c.2), Double(c.3)), SIMD2(Double(c.4), Double(c.5)), SIMD2(Double(c.6), Double(c.7))]
    }

    private static func nativeFormat(_ format: CodeFormat) -> ak_code_format {
        switch format {
        case .qrCode: return AK_CODE_QR
        case .microQRCode: return AK_CODE_MICRO_QR
        case .dataMatrix: return AK_CODE_DATA_MATRIX
        case .aztec: return AK_CODE_AZTEC
        }
    }

    private static func format(_ native: Int32) -> CodeFormat? {
        CodeFormat.allCases.first { Int32(nativeFormat($0).rawValue) == native }
    }
}

extension Image {
    /// A QR code holding `payload` (UTF-8 text or bytes; error correction level M), drawn black on
    /// white at `modulePixels` px per module with `quietModules` modules of quiet zone on each side;
    /// and its modules per side.
    public static func qrCode(_ payload: CodePayload, modulePixels: Int, quietModules: Int = 4) throws -> (image: Image, modules: Int) {
        let bytes = payload.bytes
        var modules: Int32 = 0
        var isText: Int32 = 0
        if case .text = payload { isText = 1 }
        let image = try Image.make("QR code drawing") { out in
            bytes.withUnsafeBufferPointer { ak_qr_draw($0.baseAddress, Int32($0.count), isText, Int32(modulePixels), Int32(quietModules), out, &modules) }
        }
        return (image, Int(modules))
    }
}
