import Foundation
import Testing

/// The C++ solvers' own tests (Tests/SolverTests: triangulation, PnP, two-view initialisation,
/// bundle adjustment and view-pose refinement on known cases), run as part of `swift test`.
@Suite("C++ solvers")
struct SolverTests {
    @Test func solverTestsPass() throws {
        let binary = try #require(CLITests.builtExecutable(named: "anchorkit-solver-tests"), "anchorkit-solver-tests was not built")
        let (status, text) = try ProgramRun.output(of: binary)
        #expect(status == 0, "\(text)")
        #expect(text.contains("passed: 0 check(s) failed"), "\(text)")
    }
}
