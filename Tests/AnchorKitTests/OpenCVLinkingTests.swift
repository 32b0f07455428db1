import Foundation
import Testing

/// OpenCV is compiled against through `CShims/opencv4` and linked module by module
/// (Package.swift, `openCVModules`), not through opencv4.pc, which names all of OpenCV's modules.
@Suite("OpenCV linking") struct OpenCVLinkingTests {
    /// `program` (found on the PATH) with `arguments`, its standard output; nil when it cannot
    /// run or fails.
    static func output(of program: String, _ arguments: [String]) -> String? {
        guard let run = try? ProgramRun.output(of: "/usr/bin/env", [program] + arguments), run.status == 0 else { return nil }
        return run.text
    }

    /// Package.swift's `openCVModules`: the modules linked by name.
    static func linkedModules() -> [String]? {
        guard let manifest = try? String(contentsOfFile: Paths.repoRoot + "/Package.swift", encoding: .utf8),
              let line = manifest.split(separator: "\n").first(where: { $0.hasPrefix("let openCVModules = [") }) else { return nil }
        return line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The header link leads where pkg-config puts OpenCV's headers on this machine.
    @Test func headerLinkIsPkgConfigsIncludeDirectory() throws {
        let flags = try #require(Self.output(of: "pkg-config", ["--cflags-only-I", "opencv4"]))
        let directories = flags.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.hasPrefix("-I") }.map { String($0.dropFirst(2)) }
        let linked = URL(fileURLWithPath: Paths.repoRoot + "/CShims/opencv4").resolvingSymlinksInPath().path
        #expect(directories.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }.contains(linked),
                "CShims/opencv4 leads to \(linked); pkg-config --cflags-only-I opencv4 gives \(flags)")
        #expect(FileManager.default.fileExists(atPath: linked + "/opencv2/core.hpp"))
    }

    /// The built `anchorkit` loads the modules the shims call and the ones those need, not all of
    /// OpenCV (no GUI, no 3-D viewer, no contrib beyond aruco and wechat_qrcode).
    @Test func executableLoadsOnlyTheModulesItCalls() throws {
        let binary = try #require(CLITests.binary, "anchorkit is not built beside the tests")
        let libraries = try #require(Self.output(of: "ldd", [binary]))
        let modules = Set(libraries.split(separator: "\n").compactMap { line -> String? in
            guard let name = line.split(whereSeparator: \.isWhitespace).first, name.hasPrefix("libopencv_") else { return nil }
            return String(name.dropFirst("libopencv_".count).prefix { $0 != "." })
        })
        let called = try Set(#require(Self.linkedModules(), "no `let openCVModules = [...]` line in Package.swift"))
        let needed: Set = ["flann", "dnn"]  // by calib3d and features2d; by objdetect and wechat_qrcode
        #expect(called.isSubset(of: modules), "missing: \(called.subtracting(modules).sorted())")
        #expect(modules.isSubset(of: called.union(needed)), "also loaded: \(modules.subtracting(called.union(needed)).sorted())")
    }
}
