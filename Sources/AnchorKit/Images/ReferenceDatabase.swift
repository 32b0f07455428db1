import AnchorKitCV
import Foundation

/// A saved reference-image set: each reference's name, printed size, working size and ORB
/// features, with the image file it came from. Opening one skips feature extraction (most of a
/// large set's start-up); pixels are read from the image files only for references that are
/// found in the video.
///
/// File layout, little-endian, version ``formatVersion``:
/// `"AKREFDB\n"`, UInt32 version, UInt32 count, then per reference: name and source path
/// (UInt32 byte count + UTF-8; the path relative to the database's folder unless absolute),
/// UInt64 source file size, Float64 physical width and height (metres), UInt32 working width
/// and height (pixels), UInt32 feature count n, n keypoints of 6 x 4 bytes (x, y, size, angle,
/// response as Float32 in working-copy pixels and degrees, octave as Int32) and n x 32
/// descriptor bytes.
public enum ReferenceDatabase {
    /// The version written; files of other versions are refused with a clear message.
    public static let formatVersion: UInt32 = 1
    static let magic = Array("AKREFDB\n".utf8)
    static let keypointBytes = 24
    static let descriptorBytes = 32
    /// The fewest bytes a reference can take (empty name and path, no features): bounds the
    /// stated count by the file's size before anything is allocated.
    static let minimumReferenceBytes = 4 + 4 + 8 + 8 + 8 + 4 + 4 + 4

    /// Writes `set` to `path` (atomically). Every reference must come from an image file.
    public static func write(_ set: ReferenceImageSet, to path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        var data = Data(magic)
        data.appendLittleEndian(formatVersion)
        data.appendLittleEndian(UInt32(set.images.count))
        for reference in set.images {
            guard let source = reference.sourcePath else {
                throw ReferenceImageError("reference image \"\(reference.name)\" was made from pixels, not a file: a database can only refer to files")
            }
            let absolute = URL(fileURLWithPath: source).standardizedFileURL.path
            let size = try fileSize(absolute)
            let stored = absolute.hasPrefix(folder + "/") ? String(absolute.dropFirst(folder.count + 1)) : absolute
            data.appendString(reference.name)
            data.appendString(stored)
            data.appendLittleEndian(UInt64(size))
            data.appendLittleEndian(reference.physicalWidth.bitPattern)
            data.appendLittleEndian(reference.physicalHeight.bitPattern)
            data.appendLittleEndian(UInt32(reference.width))
            data.appendLittleEndian(UInt32(reference.height))
            let keypoints = reference.features.keypoints
            data.appendLittleEndian(UInt32(keypoints.count))
            for k in keypoints {
                for v in [k.x, k.y, k.size, k.angle, k.response] { data.appendLittleEndian(v.bitPattern) }
                data.appendLittleEndian(UInt32(bitPattern: k.octave))
            }
            data.append(contentsOf: reference.features.descriptors)
        }
        let file = try AtomicFile(destination: path)
        try file.write(data)
        try file.commit()
    }

    /// Opens a database written by ``write(_:to:)``. Throws an ``InputError`` naming the file
    /// for a missing, truncated, corrupt or other-version database, and for a source image that
    /// is missing or has changed since.
    public static func read(contentsOf path: String) throws -> ReferenceImageSet {
        guard FileManager.default.isReadableFile(atPath: path) else { throw InputError(path, "no such reference database (or not readable)") }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw InputError(path, "cannot read: \(error.localizedDescription)") }
        var reader = Reader(bytes: [UInt8](data))
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            guard try reader.bytes(magic.count) == magic else { throw InputError(path, "not an AnchorKit reference database") }
            let version: UInt32 = try reader.integer()
            guard version == formatVersion else {
                throw InputError(path, "reference database version \(version); this AnchorKit reads version \(formatVersion): rebuild it with `anchorkit reference-db`")
            }
            let count: UInt32 = try reader.integer()
            guard count >= 1, count <= 100_000, Int(count) <= reader.remaining / minimumReferenceBytes else {
                throw InputError(path, "truncated or corrupt reference database (\(count) references in \(reader.remaining) bytes)")
            }
            var images: [ReferenceImage] = []
            for _ in 0..<count {
                let name = try reader.string()
                let stored = try reader.string()
                let fileBytes: UInt64 = try reader.integer()
                let width = Double(bitPattern: try reader.integer()), height = Double(bitPattern: try reader.integer())
                let pixelsWide: UInt32 = try reader.integer(), pixelsHigh: UInt32 = try reader.integer()
                let n: UInt32 = try reader.integer()
                guard n <= 1_000_000, Int(n) <= reader.remaining / (keypointBytes + descriptorBytes) else {
                    throw InputError(path, "truncated or corrupt reference database (\(n) features of reference \"\(name)\" in \(reader.remaining) bytes)")
                }
                // The stored size is untrusted: one that is no file size cannot match the image's.
                guard let expectedBytes = Int(exactly: fileBytes) else {
                    throw InputError(path, "corrupt reference database (reference \"\(name)\": image size \(fileBytes) bytes)")
                }
                var keypoints: [ak_keypoint] = []
                keypoints.reserveCapacity(Int(n))
                for _ in 0..<n {
                    let x = Float(bitPattern: try reader.integer()), y = Float(bitPattern: try reader.integer())
                    let size = Float(bitPattern: try reader.integer()), angle = Float(bitPattern: try reader.integer())
                    let response = Float(bitPattern: try reader.integer()), octave: UInt32 = try reader.integer()
                    keypoints.append(ak_keypoint(x: x, y: y, size: size, angle: angle, response: response, octave: Int32(bitPattern: octave)))
                }
                let descriptors = try reader.bytes(Int(n) * descriptorBytes)
                let source = stored.hasPrefix("/") ? stored : folder + "/" + stored
                guard FileManager.default.fileExists(atPath: source) else {
                    throw InputError(path, "reference \"\(name)\": its image \(source) is missing")
                }
                guard (try? fileSize(source)) == expectedBytes else {
                    throw InputError(path, "reference \"\(name)\": its image \(source) changed since the database was built: rebuild it with `anchorkit reference-db`")
                }
                do {
                    images.append(try ReferenceImage(name: name, physicalWidth: width, physicalHeight: height, width: Int(pixelsWide),
                                                     height: Int(pixelsHigh), features: try FeatureSet(keypoints: keypoints, descriptors: descriptors),
                                                     sourcePath: source))
                } catch let e as ReferenceImageError {
                    throw InputError(path, "corrupt reference database: \(e.description)")
                } catch let e as NativeError {
                    throw InputError(path, "corrupt reference database: \(e.message)")
                }
            }
            guard reader.isAtEnd else { throw InputError(path, "corrupt reference database (trailing bytes)") }
            do { return try ReferenceImageSet(images) } catch {
                throw InputError(path, "corrupt reference database: \(describe(error))")
            }
        } catch is Reader.Truncated {
            throw InputError(path, "truncated reference database")
        }
    }

    private static func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Bounds-checked little-endian reading.
    private struct Reader {
        struct Truncated: Error {}
        let bytes: [UInt8]
        var offset = 0
        var isAtEnd: Bool { offset == bytes.count }
        var remaining: Int { bytes.count - offset }

        mutating func bytes(_ n: Int) throws -> [UInt8] {
            guard n >= 0, n <= bytes.count - offset else { throw Truncated() }
            defer { offset += n }
            return Array(bytes[offset..<offset + n])
        }

        mutating func integer<T: FixedWidthInteger>() throws -> T {
            let size = MemoryLayout<T>.size
            guard size <= bytes.count - offset else { throw Truncated() }
            var value: T = 0
            for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
            offset += size
            return value
        }

        mutating func string() throws -> String {
            let n: UInt32 = try integer()
            guard n <= 4096 else { throw Truncated() }
            guard let s = String(bytes: try bytes(Int(n)), encoding: .utf8) else { throw Truncated() }
            return s
        }
    }
}

private extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendString(_ s: String) {
        let bytes = Array(s.utf8)
        appendLittleEndian(UInt32(bytes.count))
        append(contentsOf: bytes)
    }
}
