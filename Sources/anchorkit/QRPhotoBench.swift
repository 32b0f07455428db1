import AnchorKit
import ArgumentParser
import Foundation

/// `anchorkit bench qr-photos`: decode recall and time per photo of anchorkit's code reader beside
/// OpenCV's `QRCodeDetector` and zxing-cpp's own example reader (`ZXingReader`, Debian's
/// zxing-cpp-tools, when installed), on real photos of QR codes, in one run. See Benchmarks/README.md.
struct QRPhotoBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr-photos",
        abstract: "QR codes in real photos: decode recall and time per photo, anchorkit beside OpenCV's QRCodeDetector and ZXingReader.",
        discussion: """
            FOLDER holds photos (PNG or JPEG), each with a .txt of the same name giving the payload it \
            holds (zxing's test-sample layout; Datasets/qr-photos is such a folder). A photo counts as \
            read when a code with that payload is found. anchorkit and OpenCV are timed in this process \
            on decoded images (median of --repeats runs per photo); ZXingReader, a separate process, is \
            timed over all photos at once, its PNG decoding and start-up included, so the decoding alone \
            is timed too.

            Example: anchorkit bench qr-photos Datasets/qr-photos --repeats 5
            """)

    @Argument(help: "A folder of photos with a .txt payload beside each.")
    var folder: String = "Datasets/qr-photos"

    @Option(help: "Timed runs of every reader on every photo (the median is kept), after one untimed run.")
    var repeats = 3

    @Flag(help: "Print the results as JSON instead of a markdown table.")
    var json = false

    @Flag(help: "Also list the photos each reader missed.")
    var misses = false

    func validate() throws {
        guard (1...1000).contains(repeats) else { throw ValidationError("--repeats must be in 1...1000, got \(repeats)") }
    }

    struct Row: Encodable {
        let reader: String
        let read: Int
        /// Photos where it located a code, read or not (nil: not counted).
        let located: Int?
        let photos: Int
        let recall: Double
        let millisecondsPerPhoto: Double?
        let missed: [String]
    }

    func run() throws {
        try reportingErrors {
            let photos = try QRPhoto.load(folder: folder)
            var rows: [Row] = []
            let decodeStart = ContinuousClock.now
            for _ in 0..<repeats { for p in photos { _ = try Image(contentsOf: p.path, channels: 1) } }
            let decodeMilliseconds = (ContinuousClock.now - decodeStart).seconds * 1000 / Double(repeats * photos.count)

            var ours = CodeReader.Parameters()
            ours.formats = [.qrCode]
            var opencv = CodeReader.Parameters(), wechat = CodeReader.Parameters()
            opencv.library = .opencv
            wechat.library = .opencvWeChat
            for (name, parameters) in [("anchorkit (zxing-cpp, refined corners)", ours), ("OpenCV QRCodeDetector", opencv),
                                       ("OpenCV contrib WeChatQRCode", wechat)] {
                let reader = try CodeReader(parameters: parameters)
                var missed: [String] = []
                var located = 0
                var times: [Double] = []
                for p in photos {
                    let image = try Image(contentsOf: p.path, channels: 1)
                    var found = try reader.read(image)
                    var runs: [Double] = []
                    for _ in 0..<repeats {
                        let start = ContinuousClock.now
                        found = try reader.read(image)
                        runs.append((ContinuousClock.now - start).seconds)
                    }
                    times.append(runs.sorted()[runs.count / 2])
                    if !found.contains(where: { $0.payload?.bytes == p.payload }) { missed.append(p.name) }
                    if !found.isEmpty { located += 1 }
                }
                rows.append(Row(reader: name, read: photos.count - missed.count, located: located, photos: photos.count,
                                recall: Double(photos.count - missed.count) / Double(photos.count),
                                millisecondsPerPhoto: 1000 * times.reduce(0, +) / Double(times.count), missed: missed))
            }
            if let zxing = try ZXingReaderRun.run(photos) { rows.append(zxing) }
            if json {
                struct Report: Encodable { let folder: String; let decodeMillisecondsPerPhoto: Double; let readers: [Row] }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(Report(folder: folder, decodeMillisecondsPerPhoto: decodeMilliseconds,
                                                                  readers: rows)), as: UTF8.self))
                return
            }
            print("QR photos in \(folder): \(photos.count) photos, PNG/JPEG decoding alone \(String(format: "%.2f", decodeMilliseconds)) ms a photo\n")
            print("| reader | read | recall | located | ms per photo |")
            print("|---|---:|---:|---:|---:|")
            for r in rows {
                let time = r.millisecondsPerPhoto.map { String(format: "%.2f", $0) } ?? "–"
                let located = r.located.map { "\($0) / \(r.photos)" } ?? "–"
                print("| \(r.reader) | \(r.read) / \(r.photos) | \(String(format: "%.1f %%", 100 * r.recall)) | \(located) | \(time) |")
            }
            if misses {
                for r in rows where !r.missed.isEmpty { print("\n\(r.reader) missed: \(r.missed.joined(separator: ", "))") }
            }
        }
    }
}

/// A photo of a QR code and the payload it holds.
struct QRPhoto {
    let path: String
    let name: String
    let payload: [UInt8]

    /// Every PNG or JPEG in `folder` with a `.txt` beside it, by name.
    static func load(folder: String) throws -> [QRPhoto] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw InputError(folder, "no such folder (expected photos with a .txt payload beside each)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let photos = try names.filter { ["png", "jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }.compactMap { name -> QRPhoto? in
            let text = folder + "/" + (name as NSString).deletingPathExtension + ".txt"
            guard FileManager.default.fileExists(atPath: text) else { return nil }
            return QRPhoto(path: folder + "/" + name, name: name, payload: [UInt8](try Data(contentsOf: URL(fileURLWithPath: text))))
        }
        guard !photos.isEmpty else { throw InputError(folder, "no photo with a .txt payload beside it") }
        return photos
    }
}

/// zxing-cpp's example reader run once over every photo (QR codes only).
enum ZXingReaderRun {
    static func run(_ photos: [QRPhoto]) throws -> QRPhotoBench.Row? {
        guard let tool = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map({ $0 + "/ZXingReader" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            FileHandle.standardError.write(Data("note: ZXingReader is not installed (apt-get install zxing-cpp-tools): its row is left out\n".utf8))
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-format", "QRCode", "-norotate"] + photos.map(\.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        // Per file: "File:       <path>" then "Bytes:      47 6F ..." for each code read.
        var read: [String: [[UInt8]]] = [:]
        var current = ""
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("File:") { current = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("Bytes:") {
                read[current, default: []].append(line.dropFirst(6).split(separator: " ").compactMap { UInt8($0, radix: 16) })
            }
        }
        let missed = photos.filter { p in !(read[p.path] ?? []).contains(p.payload) }.map(\.name)
        return QRPhotoBench.Row(reader: "ZXingReader (whole process, decoding included)", read: photos.count - missed.count,
                                located: nil, photos: photos.count, recall: Double(photos.count - missed.count) / Double(photos.count),
                                millisecondsPerPhoto: 1000 * seconds / Double(photos.count), missed: missed)
    }
}
