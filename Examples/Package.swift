// swift-tools-version:5.9
// Examples that use AnchorKit as an engine would: through its core product only.
import PackageDescription

let package = Package(
    name: "AnchorKitExamples",
    dependencies: [.package(name: "AnchorKit", path: "..")],
    targets: [
        .executableTarget(name: "PlaceQuad", dependencies: [.product(name: "AnchorKit", package: "AnchorKit")], path: "PlaceQuad"),
    ]
)
