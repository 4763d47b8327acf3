import Foundation
import XCTest

/// A real writer process killed with SIGKILL at random moments (also inside compactions and
/// while it opens the database); the directory it leaves must hold every acknowledged commit
/// and nothing but a prefix of the workload. Seeded: `STRATA_KILL_SEED` replays a run,
/// `STRATA_KILLS` sets the number of kills (Tests/Scripts/kill-sweep.sh runs hundreds).
final class KillTests: XCTestCase {
    func testKilledWriterLeavesEveryAcknowledgedCommitAndOnlyAPrefix() throws {
        try sweep(backgroundCompaction: false)
    }

    /// The same with the writer's background compactor on: kills land in its copies, installs
    /// and removals too.
    func testKilledWriterWithTheBackgroundCompactorLeavesEveryAcknowledgedCommit() throws {
        try sweep(backgroundCompaction: true)
    }

    func sweep(backgroundCompaction: Bool) throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["STRATA_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let kills = environment["STRATA_KILLS"].flatMap(Int.init) ?? 40
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        print("KillTests: seed \(seed) (replay with STRATA_KILL_SEED=\(seed)), \(kills) kills")
        var sweep = KillSweep(seed: seed, directory: directory)
        sweep.backgroundCompaction = backgroundCompaction
        switch sweep.run(kills: kills) {
        case .success(let tally): print("KillTests: seed \(seed): \(tally)")
        case .failure(let failure): XCTFail("\(failure)")
        }
    }
}
