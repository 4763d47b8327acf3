import XCTest
@_spi(Testing) @testable import StrataStorage

/// Crash at every sync point of a workload while the background compactor runs (each commit
/// waits for the compactor, so the sync points are the same in every run): every image reopens
/// with a prefix of the commits that holds every acknowledged one, and no leftover files.
final class BackgroundCompactionCrashTests: XCTestCase {
    func open(_ fileSystem: any FileSystem, policy: CompactionPolicy) throws -> Store {
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.segmentSize = 4096
        options.compressionThreshold = 1024
        options.compaction = policy
        return try Store(directory: "/db", options: options)
    }

    /// Runs the workload until the `crashAt`-th sync (in a commit or in the compactor).
    func runUntilCrash(_ batches: [WriteBatch], crashAt: Int?) -> (images: [(String, MemoryFileSystem)], acknowledged: Int, syncs: Int, compactions: Int) {
        let (fileSystem, images) = crashingFileSystem(at: crashAt)
        var acknowledged = 0
        var compactions = 0
        do {
            let store = try open(fileSystem, policy: BackgroundCompactionTests.eager)
            for batch in batches {
                try store.commit(batch)
                acknowledged += 1
                store.waitForBackgroundCompaction()
                compactions = store.backgroundCompaction.completedRuns
                if !images.withLock(\.isEmpty) { break }  // the compactor crashed
            }
            try store.close()
        } catch {
            // The crash: whatever the store was doing stops here.
        }
        return (images.withLock { $0 }, acknowledged, fileSystem.syncCount, compactions)
    }

    func testCrashAtEverySyncPointWhileTheBackgroundCompactorRuns() throws {
        let seed: UInt64 = 71
        noteSeed(seed)
        let batches = makeWorkload(commits: 120, seed: seed)
        let states = prefixStates(of: batches)
        let clean = runUntilCrash(batches, crashAt: nil)
        XCTAssertGreaterThan(clean.compactions, 2, "the compactor should run several times")
        var compactedImages = 0
        for point in 1...clean.syncs {
            let run = runUntilCrash(batches, crashAt: point)
            XCTAssertEqual(run.images.count, 4, "no crash image at sync \(point)")
            for (policy, image) in run.images {
                let context = "sync point \(point)/\(clean.syncs), policy \(policy), \(run.acknowledged) acknowledged"
                let store = try open(image, policy: .manual)
                if try Manifest.read(in: "/db", fileSystem: image)?.version == 2 { compactedImages += 1 }
                let recovered = Int(store.sequence)
                let candidates = run.acknowledged...min(run.acknowledged + 1, batches.count)
                XCTAssertTrue(candidates.contains(recovered), "recovered \(recovered), not in \(candidates), at \(context)")
                if candidates.contains(recovered) {
                    XCTAssertTrue(try contents(of: store.snapshot()) == states[recovered], "wrong state at \(context)")
                }
                let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: image)).segments
                XCTAssertEqual(Set(try image.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") }),
                               Set(listed.map(SegmentFile.name(for:))), "leftovers at \(context)")
                try store.close()
            }
        }
        XCTAssertGreaterThan(compactedImages, clean.syncs, "many images should hold compacted segments")
    }
}
