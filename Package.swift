// swift-tools-version:5.9
import PackageDescription

// OpenCV's modules that the shims call, linked by name. Debian's only pkg-config file for OpenCV,
// opencv4.pc, names all 55 modules, and SwiftPM links every library a system library's .pc
// names: their 380 shared libraries made the dynamic loader's symbol lookups most of a short
// run's time (Benchmarks/README.md, "Start-up"). One line: OpenCVLinkingTests reads it and
// checks the executable loads these modules and only what they need.
let openCVModules = ["core", "imgproc", "calib3d", "features2d", "video", "videoio", "imgcodecs", "aruco", "objdetect", "wechat_qrcode"]
// ... and their headers: CShims/opencv4 links to Debian's /usr/include/opencv4, the include
// directory `pkg-config --cflags opencv4` gives (a test checks that it still does).
let openCVHeaders = CXXSetting.headerSearchPath("../opencv4")

let package = Package(
    name: "AnchorKit",
    products: [
        // What an engine imports: sessions, anchors, markers, images, world, planes, raycasts.
        .library(name: "AnchorKit", targets: ["AnchorKit"]),
        // Frame sources and writers (video, image folders, photos) and the FORMATS.md files.
        .library(name: "AnchorKitMedia", targets: ["AnchorKitMedia"]),
        // A software rasteriser and the overlays composited on anchors.
        .library(name: "AnchorKitRendering", targets: ["AnchorKitRendering"]),
        // Rendered test sequences with ground truth.
        .library(name: "AnchorKitSynthesis", targets: ["AnchorKitSynthesis"]),
        // Scorers of anchor, trajectory and plane streams against ground truth.
        .library(name: "AnchorKitEvaluation", targets: ["AnchorKitEvaluation"]),
        .executable(name: "anchorkit", targets: ["anchorkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Eigen 3 and the libraries below, found through pkg-config so that no unsafe flags are
        // needed and the package can be a dependency of others. OpenCV 4.6 (Debian's
        // libopencv-dev and libopencv-contrib-dev) is the exception: see `openCVModules`.
        .systemLibrary(
            name: "CEigen", path: "CShims/CEigen", pkgConfig: "eigen3",
            providers: [.apt(["libeigen3-dev"])]),
        // libjpeg and zlib (OpenCV's own dependencies) check JPEG and PNG files before imread.
        .systemLibrary(
            name: "CJPEG", path: "CShims/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "CShims/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // AprilTag 3: quad detection and decoding for the DICT_APRILTAG_* dictionaries.
        .systemLibrary(
            name: "CAprilTag", path: "CShims/CAprilTag", pkgConfig: "apriltag", providers: [.apt(["libapriltag-dev"])]),
        // zxing-cpp: QR, Micro QR, Data Matrix and Aztec reading and QR writing.
        .systemLibrary(name: "CZXing", path: "CShims/CZXing", pkgConfig: "zxing", providers: [.apt(["libzxing-dev"])]),
        // GeographicLib: WGS84 geodesics and local tangent (east-north-up) frames.
        .systemLibrary(
            name: "CGeographicLib", path: "CShims/CGeographicLib", pkgConfig: "geographiclib",
            providers: [.apt(["libgeographiclib-dev"])]),
        // The one-line message of a thread's last failing shim call (anchorkit_last_error.h), for
        // AnchorKitCV and AnchorKitGeodesy alike.
        .target(name: "AnchorKitLastError", path: "CShims/AnchorKitLastError"),
        // The thin C API over OpenCV: C++ inside, a plain C header at the boundary.
        .target(
            name: "AnchorKitCV", dependencies: ["AnchorKitLastError", "CEigen", "CJPEG", "CZlib", "CAprilTag", "CZXing"],
            path: "CShims/AnchorKitCV",
            cxxSettings: [openCVHeaders],
            // libm, named for C++ executables (the solver tests); Swift products get it anyway.
            linkerSettings: [.linkedLibrary("m")] + openCVModules.map { .linkedLibrary("opencv_" + $0) }),
        // The numerical solvers (anchorkit_solvers.h: world geometry, alignment, plane sweep), one
        // file each, apart from the wrappers; tested by Tests/SolverTests.
        .target(name: "AnchorKitSolvers", dependencies: ["AnchorKitCV", "CEigen"], path: "CShims/AnchorKitSolvers",
                cxxSettings: [openCVHeaders]),
        // The rasteriser and 2-D drawing (anchorkit_render.h): only rendering and synthesis use them.
        .target(name: "AnchorKitRender", dependencies: ["AnchorKitCV", "CEigen"], path: "CShims/AnchorKitRender",
                cxxSettings: [openCVHeaders]),
        // Geodesy over GeographicLib (anchorkit_geodesy.h), apart from OpenCV: its own status codes.
        .target(name: "AnchorKitGeodesy", dependencies: ["AnchorKitLastError", "CGeographicLib"], path: "CShims/AnchorKitGeodesy"),
        .target(name: "AnchorKit", dependencies: ["AnchorKitCV", "AnchorKitSolvers", "AnchorKitGeodesy"], path: "Sources/AnchorKit"),
        .target(name: "AnchorKitMedia", dependencies: ["AnchorKit", "AnchorKitCV"], path: "Sources/AnchorKitMedia"),
        .target(name: "AnchorKitRendering", dependencies: ["AnchorKit", "AnchorKitCV", "AnchorKitRender"], path: "Sources/AnchorKitRendering"),
        .target(
            name: "AnchorKitSynthesis", dependencies: ["AnchorKit", "AnchorKitCV", "AnchorKitMedia", "AnchorKitRendering"],
            path: "Sources/AnchorKitSynthesis"),
        .target(
            name: "AnchorKitEvaluation", dependencies: ["AnchorKit", "AnchorKitMedia", "AnchorKitRendering"],
            path: "Sources/AnchorKitEvaluation"),
        // AnchorKitCV directly too: `bench marker-photos` calls libapriltag's raw detections as a peer.
        .executableTarget(
            name: "anchorkit",
            dependencies: [
                "AnchorKit", "AnchorKitCV", "AnchorKitMedia", "AnchorKitRendering", "AnchorKitSynthesis", "AnchorKitEvaluation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/anchorkit"),
        // The C++ solvers' own tests (run by AnchorKitTests' SolverTests).
        .executableTarget(name: "anchorkit-solver-tests", dependencies: ["AnchorKitSolvers"], path: "Tests/SolverTests"),
        .testTarget(
            name: "AnchorKitTests",
            dependencies: ["AnchorKit", "AnchorKitMedia", "AnchorKitRendering", "AnchorKitSynthesis", "AnchorKitEvaluation", "anchorkit",
                           "anchorkit-solver-tests"], path: "Tests/AnchorKitTests",
            exclude: ["Fixtures"]),
    ],
    cxxLanguageStandard: .cxx17
)
