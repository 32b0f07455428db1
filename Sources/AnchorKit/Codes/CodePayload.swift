import Foundation

/// What a 2-D code holds: text, or bytes that are not text (kept as they are).
public enum CodePayload: Hashable, Sendable, Comparable {
    /// Text, from the code's bytes in its character set (UTF-8 unless the code says otherwise).
    case text(String)
    /// Bytes that are not text in any character set the code declares (binary data, or bytes that
    /// are not valid UTF-8).
    case bytes([UInt8])

    /// The payload as an anchor stream writes it (../shared/FORMATS.md): text as it is, bytes as
    /// base64 with ``streamEncoding`` `"base64"`.
    public var streamValue: String {
        switch self {
        case .text(let text): return text
        case .bytes(let bytes): return Data(bytes).base64EncodedString()
        }
    }

    /// `"base64"` for bytes; nil for text.
    public var streamEncoding: String? {
        if case .bytes = self { return "base64" }
        return nil
    }

    /// A payload read back from a stream's `payload` and `payloadEncoding` (nil or `"base64"`);
    /// nil when the encoding is unknown or the base64 is malformed.
    public init?(streamValue: String, encoding: String?) {
        switch encoding {
        case nil: self = .text(streamValue)
        case "base64"?:
            guard let data = Data(base64Encoded: streamValue) else { return nil }
            self = .bytes([UInt8](data))
        default: return nil
        }
    }

    /// The payload's bytes: text as UTF-8.
    public var bytes: [UInt8] {
        switch self {
        case .text(let text): return Array(text.utf8)
        case .bytes(let bytes): return bytes
        }
    }

    /// A short, stable digest of the payload (16 hex digits of FNV-1a 64 over its bytes, text and
    /// bytes told apart), for anchor ids that do not grow with the payload.
    public var digest: String {
        var hash: UInt64 = 0xcbf29ce484222325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        if case .bytes = self { mix(0xff) }
        for byte in bytes { mix(byte) }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func < (a: CodePayload, b: CodePayload) -> Bool {
        (a.streamEncoding ?? "", a.streamValue) < (b.streamEncoding ?? "", b.streamValue)
    }
}

/// The symbology of a 2-D code. Each is an anchor of type `qr` in a stream; the others than QR
/// carry their name in the anchor's `format`.
public enum CodeFormat: String, Sendable, Codable, CaseIterable {
    case qrCode = "QRCode"
    case microQRCode = "MicroQRCode"
    case dataMatrix = "DataMatrix"
    case aztec = "Aztec"
}
