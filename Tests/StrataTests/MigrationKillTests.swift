import Foundation
import StrataKillWorkload
import XCTest

@testable import Strata

/// A real process killed with SIGKILL at some moment of a migration leaves the directory at the
/// old schema with the old data, or at the new one with every object migrated; either passes
/// the integrity checker, and a later open migrates what was not.
final class MigrationKillTests: DatabaseTestCase {
    private let count = 5_000

    /// Runs the migrating child on a new version-1 database; kills it `delay` seconds after it
    /// starts migrating (nil: lets it finish). Returns whether the old data was left, and how
    /// long the child ran.
    private func migrate(round: Int, killAfter delay: Double?) throws -> (leftOld: Bool, seconds: Double) {
        let directory = self.directory.appendingPathComponent("round-\(round)")
        try KillMigration.fill(directory, count: count)
        let child = try ChildProcess(executable: "StrataKillWriter", arguments: ["migrate", directory.path])
        XCTAssertTrue(child.waitFor(timeout: 30) { $0 == "M" })
        let start = Date()
        if let delay {
            usleep(UInt32(delay * 1_000_000))
        } else {
            XCTAssertTrue(child.waitFor(timeout: 120) { $0 == "m" }, "the migration should finish")
        }
        let seconds = Date().timeIntervalSince(start)
        let lines = child.finish(kill: delay != nil)
        XCTAssertFalse(lines.contains { $0.hasPrefix("E") }, "the child failed: \(lines)")
        var leftOld = false
        do {
            let db = try Database(configuration: KillMigration.v1(directory))
            XCTAssertFalse(lines.contains("m"), "the migration returned, yet the old schema is there")
            XCTAssertNil(KillMigration.problemInV1(db, count: count))
            XCTAssertTrue(db.checkIntegrity().isClean)
            leftOld = true
        } catch let error as StrataError where error.code == .schemaMismatch {}
        let migrated = try Database(configuration: KillMigration.v2(directory))
        XCTAssertNil(KillMigration.problemInV2(migrated, count: count))
        XCTAssertTrue(migrated.checkIntegrity().isClean)
        return (leftOld, seconds)
    }

    func testAMigrationKilledAtAnyMomentLeavesTheOldOrTheNewData() throws {
        let finished = try migrate(round: 0, killAfter: nil)
        XCTAssertFalse(finished.leftOld)
        var outcomes = (old: 0, new: 1)
        for round in 1...6 {
            let delay = Double(round) / 6 * finished.seconds
            if try migrate(round: round, killAfter: delay).leftOld { outcomes.old += 1 } else { outcomes.new += 1 }
        }
        print(String(format: "migration kills: a whole migration took %.2f s; %d kills left the old data, %d the migrated", finished.seconds, outcomes.old, outcomes.new))
        XCTAssertGreaterThan(outcomes.old, 0, "kills before the commit leave the old data")
    }
}
