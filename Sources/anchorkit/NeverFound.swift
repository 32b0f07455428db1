import AnchorKit

/// The listed markers (sets that name their ids), QR codes (a sequence's qrCodes) and reference
/// images a run never found, for its summary: a target that never shows up is usually a wrong id,
/// size or dictionary, not absent.
struct NeverFound {
    /// Listed marker ids per dictionary name (as in anchor ids), and reference image names.
    private var markers: [String: Set<Int>] = [:]
    private var images: Set<String>
    private var codes: Set<CodePayload>
    /// Every dictionary searched, and those of which some marker was seen.
    private var dictionaries: [String] = []
    private var dictionariesSeen = Set<String>()

    init(markers sets: [MarkerSet], imageNames: [String], codes: [CodePayload] = []) {
        self.codes = Set(codes)
        for set in sets {
            guard let name = try? MarkerDictionary.resolve(set.dictionary).name else { continue }
            if !dictionaries.contains(name) { dictionaries.append(name) }
            if let ids = set.ids { markers[name, default: []].formUnion(ids) }
        }
        images = Set(imageNames)
    }

    /// Crosses off what `update` saw.
    mutating func record(_ update: FrameUpdate) {
        for anchor in update.anchors where anchor.isTracked {
            switch anchor.kind {
            case .marker:
                if let code = anchor.markerCode {
                    markers[code.dictionary]?.remove(code.id)
                    dictionariesSeen.insert(code.dictionary)
                }
            case .image: images.remove(anchor.name ?? "")
            case .qr: if let payload = anchor.payload { codes.remove(payload) }
            case .plane, .geo: break
            }
        }
    }

    /// The dictionaries of which no marker was found so far: after the first seconds of a run, the
    /// sign of a wrong dictionary (told then, not at the end).
    var dictionariesNotSeen: [String] { dictionaries.filter { !dictionariesSeen.contains($0) } }

    /// "marker DICT_4X4_50 3, 7; image poster", or nil when everything listed was found.
    var summary: String? {
        let parts = markers.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            .map { "marker \($0.key) " + $0.value.sorted().map(String.init).joined(separator: ", ") }
            + images.sorted().map { "image \($0)" } + codes.sorted().map { "QR code \"\($0.streamValue)\"" }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
