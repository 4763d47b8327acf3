import Foundation
@_spi(Testing) import Strata
import StrataStorage
import XCTest

/// A crash seen from inside the process: the sync at point N fails. The write that asked for it
/// throws and every later write is refused (a failed sync is sticky); the crash images taken
/// there (unsynced writes kept, and dropped) recover as in ObjectCrashTests. The workload runs
/// again for each N, so the objects are compared with a reference run of the same seed.
extension ObjectCrashTests {
    struct SimulatedSyncFailure: Error {}

    func testFailedSyncAtEveryPointIsStickyAndRecovers() throws {
        let seed: UInt64 = 3
        let writes = 12
        let reference = try referenceRun(seed: seed, writes: writes)
        XCTAssertGreaterThan(reference.syncs, writes)
        for point in 1...reference.syncs {
            let fileSystem = MemoryFileSystem()
            let captures = CrashCaptures()
            fileSystem.setSyncHook { [unowned fileSystem] event in
                guard event.number == point else { return }
                captures.add(syncPoint: point, images: [
                    ("keep all", fileSystem.crashImage(.keepAll)), ("drop all", fileSystem.crashImage(.dropAll)),
                ])
                throw SimulatedSyncFailure()
            }
            try runUntilFailure(fileSystem, seed: seed, writes: writes, captures: captures)
            let taken = captures.take()
            XCTAssertEqual(taken.count, 1, "no failure at sync point \(point)")
            for capture in taken {
                for (policy, image) in capture.images {
                    let context = "seed \(seed), failed sync \(point), policy \(policy), \(capture.acknowledged) commit(s) acknowledged"
                    let allowed = capture.acknowledged...min(capture.acknowledged + 1, reference.dumps.count - 1)
                    try checkImage(image, allowed: allowed, states: nil, dumps: reference.dumps, context: context)
                }
            }
        }
    }

    /// The objects after each commit of the workload (index 0 before the open) and its syncs.
    private func referenceRun(seed: UInt64, writes: Int) throws -> (dumps: [[String]], syncs: Int) {
        let fileSystem = MemoryFileSystem()
        var workload = ObjectCrashWorkload(seed: seed)
        let db = try open(fileSystem)
        var dumps = [db.crashWorkloadDump()]
        dumps.append(dumps[0])
        for index in 1...writes {
            try workload.step(db)
            dumps.append(db.crashWorkloadDump())
            if index % 5 == 0 { try db.compact() }
        }
        return (dumps, fileSystem.syncCount)
    }

    /// Runs the workload until an operation fails; when a write failed, checks that the next
    /// one is refused too.
    private func runUntilFailure(_ fileSystem: MemoryFileSystem, seed: UInt64, writes: Int, captures: CrashCaptures) throws {
        var workload = ObjectCrashWorkload(seed: seed)
        guard let db = try? open(fileSystem) else { return }
        captures.acknowledge(durable: true)
        for index in 1...writes {
            do {
                try workload.step(db)
            } catch {
                XCTAssertThrowsError(try db.write { try db.add(Pet(value: ["name": "after-failure"])) },
                                     "a write after a failed sync (\(error)) was accepted")
                return
            }
            captures.acknowledge(durable: true)
            // A failed compaction condemns only its own output: the store goes on.
            if index % 5 == 0, (try? db.compact()) == nil { return }
        }
    }
}
