import Foundation
import Testing
@testable import AnchorKit
import AnchorKitEvaluation
import AnchorKitMedia

/// QR codes: reading real photos (zxing's test photos, Datasets/qr-photos), payloads that are not
/// text, codes cut by the border, and the anchors of a rendered sequence scored against its truth.
@Suite("QR codes")
struct QRCodeTests {
    /// The photos of Datasets/qr-photos with the payload each holds.
    static func photos() throws -> [(path: String, payload: [UInt8])] {
        let folder = Paths.dataset("qr-photos")
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }.sorted().map { name in
            let text = folder + "/" + name.dropLast(4) + ".txt"
            return (folder + "/" + name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: text))))
        }
    }

    /// 53 of the 62 real photos are read (as many as OpenCV's WeChat reader, 3 more than zxing's own
    /// example reader: `anchorkit bench qr-photos`), each with the payload its .txt gives.
    @Test func readsRealPhotos() throws {
        let reader = try CodeReader()
        var read = 0, refined = 0
        for photo in try Self.photos() {
            let found = try reader.read(try Image(contentsOf: photo.path, channels: 1))
            if let code = found.first(where: { $0.payload?.bytes == photo.payload }) {
                read += 1
                if code.isRefined { refined += 1 }
            }
        }
        print("qr-photos: \(read) of 62 read, \(refined) with refined corners")
        #expect(read >= 53)
        #expect(refined >= 50)
    }

    /// Bytes that are not UTF-8 come back as the same bytes (base64 in a stream); UTF-8 text beyond
    /// ASCII as text.
    @Test(arguments: [CodePayload.bytes([0x00, 0xFF, 0x80, 0xC3, 0x28, 0xFE]), .text("Halle 3 – Stand 12 ✓"), .text("https://example.org/a?id=42")])
    func payloadsRoundTrip(_ payload: CodePayload) throws {
        let (picture, modules) = try Image.qrCode(payload, modulePixels: 6)
        #expect(modules >= 21)
        let found = try CodeReader().read(picture)
        try #require(found.count == 1)
        #expect(found[0].payload == payload)
        #expect(found[0].modules == modules)
        #expect(found[0].isRefined)
        // The drawn code's corners are exact: the quiet zone's edge, pixel centres at integers. A
        // perfectly sharp picture is aligned with the blur assumed when none is measured (0.7 px):
        // 0.07-0.09 px here, 0.05 px on rendered, blurred video (qr-table).
        let q = 4.0 * 6 - 0.5, side = Double(modules * 6)
        let truth = [SIMD2(q, q), SIMD2(q + side, q), SIMD2(q + side, q + side), SIMD2(q, q + side)]
        #expect(Scorer.cornerError(found[0].corners, truth) < 0.15)

        var anchor = Anchor(identifier: Anchor.qrIdentifier(payload: payload), kind: .qr, isTracked: true, transform: .identity,
                            extent: SIMD2(0.05, 0.05))
        anchor.payload = payload
        let json = try JSONEncoder().encode(anchor)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"payloadEncoding\"") == (payload.streamEncoding != nil))
        #expect(try JSONDecoder().decode(Anchor.self, from: json).payload == payload)
    }

    /// A code cut by the image border, and an empty or black frame: no code, no crash. Following a
    /// code whose prediction lies outside the frame fails cleanly.
    @Test func cutAndEmptyFrames() throws {
        let (picture, _) = try Image.qrCode(.text("cut"), modulePixels: 5)
        let reader = try CodeReader()
        _ = try reader.read(picture)
        // The left 55 % of the code and its quiet zone: two finder patterns cut.
        let cut = try picture.cropped(x: 0, y: 0, width: picture.width * 55 / 100, height: picture.height)
        #expect(try reader.read(cut).isEmpty)
        for value in [UInt8(0), 255] {
            #expect(try reader.read(try Image.filled(width: 64, height: 48, channels: 1, value: value)).isEmpty)
        }
        let away = [SIMD2(-400.0, -400), SIMD2(-300.0, -400), SIMD2(-300.0, -300), SIMD2(-400.0, -300)]
        #expect(try reader.followQRCode(.text("cut"), from: away, in: picture) == nil)
        #expect(try reader.followQRCode(.text("never read"), from: away, in: picture) == nil)
    }

    /// Sizes by payload pattern: the first match, else the default; exact payloads escaped.
    @Test func sizesByPayload() throws {
        let set = QRCodeSet(defaultSize: 0.1, sizes: [
            try .init(argument: "https://example.org/*=0.05"), .init(payload: .text("a*b"), size: 0.07),
        ])
        #expect(set.size(for: .text("https://example.org/x")) == 0.05)
        #expect(set.size(for: .text("a*b")) == 0.07)
        #expect(set.size(for: .text("axb")) == 0.1)
        #expect(QRCodeSet().size(for: .text("x")) == nil)
        #expect(throws: MarkerError.self) { try QRCodeSet.PayloadSize(argument: "nosize") }
        #expect(throws: MarkerError.self) { try QRCodeSet.PayloadSize(argument: "x=-1") }
    }

    /// qr-table (four codes on a table, one payload printed twice, one of bytes): the anchors scored
    /// against the truth. Figures: Benchmarks/README.md, "QR codes".
    @Test func renderedTableIsAccurate() throws {
        let sequence = try RecordedSequence(folder: Paths.dataset("qr-table"))
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let source = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try source.nextFrame() { updates.append(try session.process(frame)) }
        let truth = try #require(try sequence.groundTruth())
        let score = Scorer(camera: sequence.description.camera).score(reported: updates, truth: truth)
        let success = score.successRate(at: 3) ?? 0
        let corners = try #require(score.cornerError), rotation = try #require(score.rotationErrorDegrees)
        print("qr-table: success at 3 px \(success), corner error median \(corners.median) px, rotation median \(rotation.median)°")
        #expect(success >= 0.8)
        #expect(corners.median < 0.1)
        #expect(rotation.median < 0.2)
        #expect(score.falsePositives == 0)
        #expect(score.identitySwitches == 0)
        let ids = Set(updates.flatMap { $0.anchors.filter(\.isTracked).map(\.identifier) })
        let url = CodePayload.text("https://example.org/exhibit?id=42")
        #expect(ids.contains(Anchor.qrIdentifier(payload: url)) && ids.contains(Anchor.qrIdentifier(payload: url, instance: 1)))
        #expect(updates.contains { $0.anchors.contains { $0.payload?.streamEncoding == "base64" && $0.isTracked } })
    }
}
