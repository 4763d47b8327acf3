import Dispatch
import Foundation
import HashTreeCollections  // TreeDictionary, the index's trie (a dependency of StrataStorage)
import Synchronization
import XCTest
@_spi(Testing) @testable import StrataStorage

/// Online compaction: what it keeps, what it frees, how it runs beside commits and snapshots,
/// and what a crash in the middle of it leaves.
final class CompactionTests: XCTestCase {
    // MARK: - Helpers

    /// The `.seg` files in `/db`.
    func segmentFiles(_ fileSystem: MemoryFileSystem) throws -> Set<String> {
        Set(try fileSystem.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") })
    }

    /// The decoded header of a segment file.
    func header(_ fileSystem: MemoryFileSystem, _ name: String) throws -> SegmentHeader {
        let bytes = try XCTUnwrap(fileSystem.contents(of: "/db/" + name))
        return try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: name) }
    }

    func manifest(_ fileSystem: MemoryFileSystem) throws -> Manifest {
        try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem))
    }

    /// Commits `batches` and returns the model of what the store holds.
    @discardableResult
    func commitAll(_ store: Store, _ batches: [WriteBatch], into model: inout Contents) throws -> Contents {
        for batch in batches {
            try store.commit(batch)
            apply(batch, to: &model)
        }
        return model
    }

    /// A store with many sealed segments full of overwritten values and tombstones.
    func churnedStore(
        _ fileSystem: MemoryFileSystem, commits: Int = 300, seed: UInt64 = 11, openWithHints: Bool = false
    ) throws -> (Store, Contents) {
        noteSeed(seed)
        let store = try openStore(fileSystem, openWithHints: openWithHints)
        var model: Contents = [:]
        try commitAll(store, makeWorkload(commits: commits, seed: seed), into: &model)
        return (store, model)
    }

    func value(_ i: Int, _ tag: String = "v") -> [UInt8] { Array("\(tag)\(i)".utf8) }

    // MARK: - What compaction keeps and frees

    func testCompactionKeepsEveryValueAndFreesSpace() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try churnedStore(fileSystem)
        let before = store.statistics()
        let sequence = store.sequence
        XCTAssertGreaterThan(before.segments, 5)
        XCTAssertGreaterThan(before.deadBytes, before.liveBytes, "the workload should leave much dead data")

        let report = try store.compact()
        let after = store.statistics()
        XCTAssertTrue(report.didCompact)
        XCTAssertEqual(report.segmentsCompacted, before.segments, "the active segment is sealed and compacted too")
        XCTAssertEqual(report.segmentsBefore, before.segments)
        XCTAssertEqual(report.segmentsAfter, after.segments)
        XCTAssertEqual(report.bytesBefore, before.totalBytes)
        XCTAssertEqual(report.bytesAfter, after.totalBytes)
        XCTAssertLessThan(after.totalBytes, before.totalBytes / 2)
        XCTAssertLessThan(after.segments, before.segments)
        XCTAssertEqual(
            report.bytesReclaimed, before.totalBytes - after.totalBytes + SegmentHeader.size,
            "the store gained the header of the new active segment")
        XCTAssertEqual(report.recordsSuperseded, 0)
        XCTAssertEqual(after.keys, before.keys)
        XCTAssertEqual(after.liveBytes, before.liveBytes, "records are copied byte for byte")
        XCTAssertEqual(after.sequence, sequence, "compaction commits nothing")

        // Dead bytes in the compacted part: only its segment headers.
        let snapshot = store.snapshot()
        let compacted = try manifest(fileSystem).segments.dropLast()
        let active = try manifest(fileSystem).segments.last!
        let activeLive = snapshot.index.keyspaces.values.reduce(0) { total, keys in
            keys.reduce(total) { $1.value.segment == active ? $0 + Int($1.value.length) : $0 }
        }
        let activeSize = fileSystem.contents(of: "/db/" + SegmentFile.name(for: active))!.count
        XCTAssertEqual(after.deadBytes, compacted.count * SegmentHeader.size + (activeSize - activeLive))
        XCTAssertEqual(report.segmentsWritten, compacted.count)
        XCTAssertEqual(report.recordsCopied, snapshot.count - snapshot.index.keyspaces.values.reduce(0) { total, keys in
            keys.reduce(total) { $1.value.segment == active ? $0 + 1 : $0 }
        })

        XCTAssertEqual(try contents(of: snapshot), model)
        // Only the segments the MANIFEST names are left, and the compacted ones say so.
        let listed = try manifest(fileSystem)
        XCTAssertEqual(listed.version, 2)
        XCTAssertEqual(try segmentFiles(fileSystem), Set(listed.segments.map(SegmentFile.name(for:))))
        for number in listed.segments.dropLast() {
            XCTAssertEqual(try header(fileSystem, SegmentFile.name(for: number)).kind, .compacted)
            XCTAssertGreaterThan(number, listed.segments.last!, "compacted segments are numbered above the active one")
        }
        XCTAssertEqual(try header(fileSystem, SegmentFile.name(for: active)).kind, .log)

        // Reopen: same contents, no events, sequence numbering goes on.
        try store.close()
        let reopened = try openStore(fileSystem)
        XCTAssertEqual(reopened.recoveryEvents, [])
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        XCTAssertEqual(reopened.sequence, sequence)
        XCTAssertEqual(reopened.statistics().totalBytes, after.totalBytes)
        XCTAssertEqual(reopened.statistics().records, after.records)
        var batch = WriteBatch()
        batch.put([7], forKey: StorageKey("after"), in: Keyspace(3))
        XCTAssertEqual(try reopened.commit(batch), sequence + 1)
    }

    func testCompactingTwiceAndRollingAfterwards() throws {
        let fileSystem = MemoryFileSystem()
        var (store, model) = try churnedStore(fileSystem, commits: 200, seed: 5)
        _ = try store.compact()
        let firstCompacted = try manifest(fileSystem).segments.dropLast()
        // More commits roll past the compacted numbers: new segments are numbered above them.
        try commitAll(store, makeWorkload(commits: 150, seed: 6), into: &model)
        let order = try manifest(fileSystem).segments
        XCTAssertEqual(Array(order.prefix(firstCompacted.count)), Array(firstCompacted))
        let logSegments = order.dropFirst(firstCompacted.count)
        XCTAssertGreaterThan(logSegments.count, 2)
        XCTAssertEqual(Array(logSegments.dropFirst()), logSegments.dropFirst().sorted())
        XCTAssertGreaterThan(logSegments.dropFirst().first!, firstCompacted.max()!)
        XCTAssertEqual(Set(order).count, order.count)

        let second = try store.compact()
        XCTAssertEqual(second.segmentsCompacted, order.count, "compacted segments are compacted again, and the active one")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        XCTAssertTrue(Set(try manifest(fileSystem).segments).isDisjoint(with: firstCompacted))
        try store.close()
        store = try openStore(fileSystem)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        XCTAssertEqual(store.recoveryEvents, [])
    }

    func testNothingToCompact() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        let manifestBefore = fileSystem.contents(of: "/db/MANIFEST")
        let report = try store.compact()
        XCTAssertFalse(report.didCompact)
        XCTAssertEqual(report.segmentsBefore, 1)
        XCTAssertEqual(report.segmentsAfter, 1)
        XCTAssertEqual(report.recordsCopied, 0)
        XCTAssertEqual(fileSystem.contents(of: "/db/MANIFEST"), manifestBefore, "nothing was rewritten")
        XCTAssertTrue(report.description.contains("nothing to compact"))
    }

    /// A store whose records are all in its active segment: the compaction seals it and
    /// compacts it, so that what a user deleted goes even before any roll.
    func testARecordInTheActiveSegmentAloneIsCompacted() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        var model: Contents = [:]
        for i in 0..<100 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i), count: 200), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            if i % 2 == 1 { batch.delete(StorageKey(UInt64(i - 1)), in: Keyspace(1)) }
            try store.commit(batch)
            apply(batch, to: &model)
        }
        let before = store.statistics()
        XCTAssertEqual(before.segments, 1)
        let report = try store.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertEqual(report.segmentsCompacted, 1)
        XCTAssertEqual(report.recordsCopied, 50)
        XCTAssertLessThan(store.statistics().totalBytes, before.totalBytes * 6 / 10)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(fileSystem, segmentSize: 1 << 20).snapshot()), model)
    }

    func testCompactionOfOnlyDeadDataLeavesNoCompactedSegment() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        for i in 0..<60 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i), count: 200), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        var deletes = WriteBatch()
        for i in 0..<60 { deletes.delete(StorageKey(UInt64(i)), in: Keyspace(1)) }
        try store.commit(deletes)
        let report = try store.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertEqual(report.segmentsWritten, 0)
        XCTAssertEqual(report.recordsCopied, 0)
        let listed = try manifest(fileSystem)
        XCTAssertEqual(listed.segments.count, 1)
        XCTAssertEqual(listed.version, 1, "a MANIFEST that names no compacted segment stays version 1")
        XCTAssertEqual(listed.lastSequence, 61, "the sequence floor keeps numbering from going back")
        try store.close()
        let reopened = try openStore(fileSystem)
        XCTAssertEqual(reopened.snapshot().count, 0)
        XCTAssertEqual(reopened.sequence, 61)
    }

    func testCompressedValuesAreCopiedAsTheyAre() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 8192, compressionThreshold: 512)
        let text = Array(String(repeating: "compaction ", count: 600).utf8)
        var batch = WriteBatch()
        batch.put(text, forKey: StorageKey("text"), in: Keyspace(1))
        try store.commit(batch)
        let length = store.snapshot().index.location(of: StorageKey("text"), in: Keyspace(1))!.length
        for i in 0..<80 {
            var filler = WriteBatch()
            filler.put(Array(repeating: UInt8(i), count: 300), forKey: StorageKey(UInt64(i % 5)), in: Keyspace(2))
            try store.commit(filler)
        }
        _ = try store.compact()
        let location = store.snapshot().index.location(of: StorageKey("text"), in: Keyspace(1))!
        XCTAssertEqual(location.length, length, "the compressed record was copied, not re-encoded")
        XCTAssertTrue(try manifest(fileSystem).segments.dropLast().contains(location.segment))
        XCTAssertEqual(try store.snapshot().value(for: StorageKey("text"), in: Keyspace(1)), text)
        try store.close()
        XCTAssertEqual(try openStore(fileSystem).snapshot().value(for: StorageKey("text"), in: Keyspace(1)), text)
    }

    // MARK: - Snapshots and obsolete files

    func testSnapshotTakenBeforeCompactionKeepsReadingAndHoldsTheOldFiles() throws {
        let fileSystem = MemoryFileSystem()
        var (store, model) = try churnedStore(fileSystem)
        let filesBefore = try segmentFiles(fileSystem)
        var old: Snapshot? = store.snapshot()
        let oldModel = model
        // Change things after the snapshot: the snapshot must not see them.
        var batch = WriteBatch()
        batch.put([9, 9], forKey: StorageKey(UInt64(1)), in: Keyspace(1))
        batch.delete(StorageKey(UInt64(2)), in: Keyspace(2))
        try store.commit(batch)
        apply(batch, to: &model)

        _ = try store.compact()
        let listed = Set(try manifest(fileSystem).segments.map(SegmentFile.name(for:)))
        let replaced = filesBefore.subtracting(listed)
        XCTAssertFalse(replaced.isEmpty)
        XCTAssertEqual(try segmentFiles(fileSystem), filesBefore.union(listed), "the snapshot still holds the replaced files")
        XCTAssertEqual(try contents(of: old!), oldModel)
        XCTAssertEqual(try contents(of: store.snapshot()), model)

        old = nil
        XCTAssertEqual(try segmentFiles(fileSystem), listed, "the replaced files go with the last snapshot")
        try store.close()
        store = try openStore(fileSystem)
        XCTAssertEqual(store.recoveryEvents, [])
        XCTAssertEqual(try contents(of: store.snapshot()), model)
    }

    func testSnapshotThatOutlivesItsStoreNeverUnlinks() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try churnedStore(fileSystem, openWithHints: true)  // so that its segments have hints
        let filesBefore = try segmentFiles(fileSystem)
        var old: Snapshot? = store.snapshot()
        _ = try store.compact()
        let listed = Set(try manifest(fileSystem).segments.map(SegmentFile.name(for:)))
        let replaced = filesBefore.subtracting(listed)
        try store.close()

        // The next open removes the replaced files as leftovers.
        let reopened = try openStore(fileSystem)
        XCTAssertEqual(Set(reopened.recoveryEvents.map(\.kind)), [.leftoverFileRemoved])
        let removed = Set(reopened.recoveryEvents.map { ($0.file as NSString).lastPathComponent })
        XCTAssertEqual(removed.filter { $0.hasSuffix(".seg") }, replaced)
        // and the hints of the replaced (sealed) segments
        XCTAssertEqual(removed.filter { $0.hasSuffix(".hint") }, Set(replaced.map { $0.dropLast(4) + ".hint" }))
        XCTAssertEqual(try segmentFiles(fileSystem), listed)
        // A file that now lives under a replaced name (the old store no longer owns the
        // directory) must survive the old snapshot's release.
        let reused = try XCTUnwrap(replaced.first)
        fileSystem.setContents([1, 2, 3], of: "/db/" + reused)
        XCTAssertEqual(try contents(of: old!), model, "the old snapshot still reads its open files")
        old = nil
        XCTAssertEqual(fileSystem.contents(of: "/db/" + reused), [1, 2, 3])
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    func testFailedUnlinkLeavesAFileTheNextOpenRemoves() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty)
        var model: Contents = [:]
        try commitAll(store, makeWorkload(commits: 150, seed: 3), into: &model)
        faulty.inject(.fail(.remove, errno: EIO))
        let report = try store.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        let listed = Set(try manifest(memory).segments.map(SegmentFile.name(for:)))
        XCTAssertTrue(try segmentFiles(memory).isStrictSuperset(of: listed), "the unlinks failed")
        faulty.clearFaults()
        try store.close()
        let reopened = try openStore(memory)
        XCTAssertEqual(try segmentFiles(memory), listed)
        XCTAssertEqual(Set(reopened.recoveryEvents.map(\.kind)), [.leftoverFileRemoved])
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    // MARK: - Deletes

    func testDeletedKeyNeverComesBack() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        let gone = StorageKey("gone")
        let later = StorageKey("deleted-later")
        var first = WriteBatch()
        first.put(Array(repeating: 1, count: 500), forKey: gone, in: Keyspace(1))
        first.put(Array(repeating: 2, count: 500), forKey: later, in: Keyspace(1))
        try store.commit(first)
        // The tombstone of `gone` goes into a segment that is sealed when compacting.
        var deleteGone = WriteBatch()
        deleteGone.delete(gone, in: Keyspace(1))
        try store.commit(deleteGone)
        for i in 0..<40 {
            var filler = WriteBatch()
            filler.put(Array(repeating: UInt8(i), count: 300), forKey: StorageKey(UInt64(i)), in: Keyspace(2))
            try store.commit(filler)
        }
        _ = try store.compact()
        XCTAssertFalse(store.snapshot().contains(gone, in: Keyspace(1)))
        // The tombstone of `later` goes into the active segment, after the copy of its value.
        var deleteLater = WriteBatch()
        deleteLater.delete(later, in: Keyspace(1))
        try store.commit(deleteLater)
        try store.close()

        var reopened = try openStore(fileSystem)
        XCTAssertFalse(reopened.snapshot().contains(gone, in: Keyspace(1)))
        XCTAssertFalse(reopened.snapshot().contains(later, in: Keyspace(1)), "the tombstone after the compacted copy wins")
        // Roll past the tombstone, compact again (copy and tombstone go together), reopen.
        for i in 0..<40 {
            var filler = WriteBatch()
            filler.put(Array(repeating: UInt8(i), count: 300), forKey: StorageKey(UInt64(i + 100)), in: Keyspace(2))
            try reopened.commit(filler)
        }
        _ = try reopened.compact()
        try reopened.close()
        reopened = try openStore(fileSystem)
        XCTAssertFalse(reopened.snapshot().contains(gone, in: Keyspace(1)))
        XCTAssertFalse(reopened.snapshot().contains(later, in: Keyspace(1)))
        XCTAssertEqual(reopened.snapshot().count(in: Keyspace(2)), 80)
    }

    // MARK: - Writes during compaction

    /// Commits made while compaction copies (from the sync hook of its first output file): the
    /// overwritten and deleted keys keep their newest state, in memory and after reopen.
    func testKeysChangedDuringCompactionKeepTheirNewestState() throws {
        let fileSystem = MemoryFileSystem()
        let (store, baseModel) = try churnedStore(fileSystem)
        var model = baseModel
        // Sealed first: a seal by the compaction would sync a new segment, and the hook below
        // would then commit while the compaction holds the writer lock.
        try sealActiveSegment(of: store)
        // Pick keys whose newest record is in a sealed segment: they will be copied.
        let snapshot = store.snapshot()
        let active = try manifest(fileSystem).segments.last!
        var sealedKeys: [(Keyspace, StorageKey)] = []
        for (keyspace, keys) in snapshot.index.keyspaces {
            for (key, location) in keys where location.segment != active { sealedKeys.append((keyspace, key)) }
        }
        XCTAssertGreaterThanOrEqual(sealedKeys.count, 4)
        var during = WriteBatch()
        during.put(Array("overwritten".utf8), forKey: sealedKeys[0].1, in: sealedKeys[0].0)
        during.delete(sealedKeys[1].1, in: sealedKeys[1].0)
        during.delete(sealedKeys[2].1, in: sealedKeys[2].0)
        during.put(Array("deleted then put".utf8), forKey: sealedKeys[2].1, in: sealedKeys[2].0)
        during.put(Array("new".utf8), forKey: StorageKey("new during compaction"), in: Keyspace(1))
        apply(during, to: &model)

        // Then a batch too big for the active segment: the store rolls while compaction runs.
        var big = WriteBatch()
        big.put(Array(repeating: 0x5A, count: 3900), forKey: StorageKey("big"), in: Keyspace(3))
        apply(big, to: &model)

        let activePath = "/db/" + SegmentFile.name(for: active)
        let committed = Atomic<Bool>(false)
        let hookError = Locked<String?>(nil)
        let batches = [during, big]
        fileSystem.setSyncHook { event in
            // The first sync of a compaction output file: the copy is done, nothing installed.
            guard !event.isDirectory, event.path.hasSuffix(".seg"), event.path != activePath,
                  !committed.load(ordering: .acquiring) else { return }
            committed.store(true, ordering: .releasing)
            do {
                for batch in batches { try store.commit(batch, durability: Durability.none) }
            } catch {
                hookError.withLock { $0 = "\(error)" }
            }
        }
        let report = try store.compact()
        fileSystem.setSyncHook(nil)
        XCTAssertTrue(committed.load(ordering: .acquiring))
        XCTAssertNil(hookError.withLock { $0 })
        // The MANIFEST: the output, then the segment that was active, then the one it rolled to.
        let order = try manifest(fileSystem).segments
        XCTAssertEqual(order.count, report.segmentsWritten + 2)
        XCTAssertEqual(order[order.count - 2], active)
        XCTAssertEqual(Set(order.prefix(report.segmentsWritten)).count, report.segmentsWritten)
        XCTAssertTrue(order.prefix(report.segmentsWritten).allSatisfy { $0 > active && $0 != order.last! })
        XCTAssertEqual(report.recordsSuperseded, 3, "three copied keys changed meanwhile")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        XCTAssertEqual(try store.snapshot().value(for: sealedKeys[0].1, in: sealedKeys[0].0), Array("overwritten".utf8))
        XCTAssertFalse(store.snapshot().contains(sealedKeys[1].1, in: sealedKeys[1].0))
        try store.close()

        let reopened = try openStore(fileSystem)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        _ = try reopened.compact()  // nothing sealed but maybe the old active: still the same
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        try reopened.close()
        XCTAssertEqual(try contents(of: openStore(fileSystem).snapshot()), model)
    }

    /// A writer thread commits overwrites and deletes, a reader thread checks snapshots, while
    /// the main thread compacts over and over. Run under `--sanitize=thread` too.
    func testCompactionRunsBesideAWriterAndReaders() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, durability: .none)
        let commits = 1500
        let batches = makeWorkload(commits: commits, seed: 99).enumerated().map { index, workload in
            var batch = workload
            batch.put(withUnsafeBytes(of: UInt64(index + 1)) { Array($0) }, forKey: StorageKey("counter"), in: Keyspace(7))
            return batch
        }
        let states = prefixStates(of: batches)
        let done = Atomic<Bool>(false)
        let failures = Locked<[String]>([])
        let group = DispatchGroup()

        group.enter()
        Thread {
            defer { group.leave() }
            for batch in batches {
                do { try store.commit(batch) } catch {
                    failures.withLock { $0.append("commit: \(error)") }
                    break
                }
            }
            done.store(true, ordering: .releasing)
        }.start()

        group.enter()
        Thread {
            defer { group.leave() }
            var checked = 0
            while !done.load(ordering: .acquiring) || checked < 3 {
                let snapshot = store.snapshot()
                let s = Int(snapshot.sequence)
                do {
                    // Every snapshot holds exactly the state after its sequence's commit.
                    if checked % 10 == 0 {
                        let seen = try contents(of: snapshot)
                        if seen != states[s] { throw StrataError(.corruption, "snapshot at \(s) differs from the model") }
                    } else {
                        let counter = try snapshot.value(for: StorageKey("counter"), in: Keyspace(7))
                        let expected: [UInt8]? = s == 0 ? nil : withUnsafeBytes(of: UInt64(s)) { Array($0) }
                        if counter != expected { throw StrataError(.corruption, "counter at \(s)") }
                    }
                } catch {
                    failures.withLock { $0.append("reader: \(error)") }
                    return
                }
                checked += 1
            }
        }.start()

        var compactions = 0
        var superseded = 0
        while !done.load(ordering: .acquiring) {
            let report = try store.compact()
            if report.didCompact { compactions += 1 }
            superseded += report.recordsSuperseded
        }
        group.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(compactions, 1)
        XCTAssertEqual(store.sequence, UInt64(commits))
        XCTAssertEqual(try contents(of: store.snapshot()), states[commits])
        _ = try store.compact()
        XCTAssertEqual(try contents(of: store.snapshot()), states[commits])
        try store.close()
        let reopened = try openStore(fileSystem)
        XCTAssertEqual(try contents(of: reopened.snapshot()), states[commits])
        XCTAssertEqual(reopened.recoveryEvents.filter { $0.kind != .leftoverFileRemoved }, [])
    }

    // MARK: - Sanitizer

    /// A reader drops its copy of a trie after reading it; then the writer updates the same
    /// nodes in place (they are uniquely referenced again), as happens to the index. The reference count orders the two, but the thread sanitizer cannot
    /// see it: without the fence (used as `SnapshotStorage` and the store's mutations use it)
    /// this reports a race under `--sanitize=thread`. The relaxed flag adds no ordering.
    func testSanitizerFenceOrdersADroppedCopyBeforeInPlaceUpdates() {
        final class Copy: Sendable {
            let values: TreeDictionary<Int, Int>
            let fence: SanitizerFence
            init(_ values: TreeDictionary<Int, Int>, _ fence: SanitizerFence) {
                self.values = values
                self.fence = fence
            }
            deinit { fence.run {} }
        }
        let fence = SanitizerFence()
        let shared = Locked<TreeDictionary<Int, Int>>([:])
        shared.withLock { values in for i in 0..<2000 { values[i] = i } }
        var sums: [Int] = []
        for round in 1...50 {
            let sum = Atomic<Int>(-1)
            Thread {
                var copy: Copy? = shared.withLock { Copy($0, fence) }
                var total = 0
                for i in 0..<2000 { total &+= (copy!.values[i] ?? 0) }
                copy = nil
                sum.store(total, ordering: .relaxed)
            }.start()
            while sum.load(ordering: .relaxed) < 0 {}
            // Nothing in between (not even an assertion, which may take a lock the reader's
            // thread took on its way out).
            shared.withLock { values in
                fence.run { for i in 0..<2000 { values[i] = i + round } }
            }
            sums.append(sum.load(ordering: .relaxed))
        }
        XCTAssertEqual(sums, (1...50).map { round in (0..<2000).reduce(0, +) + (round - 1) * 2000 })
    }

    // MARK: - Reopen, read-only, format

    func testReadOnlyOpenAfterCompactionAndBesideTheWriter() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try churnedStore(fileSystem)
        _ = try store.compact()
        // Beside the running writer (no lock needed).
        let reader = try openStore(fileSystem, readOnly: true)
        XCTAssertEqual(try contents(of: reader.snapshot()), model)
        XCTAssertEqual(reader.recoveryEvents, [])
        XCTAssertThrowsError(try reader.compact()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
        }
        try store.close()
        XCTAssertThrowsError(try store.compact()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
        XCTAssertEqual(try contents(of: openStore(fileSystem, readOnly: true).snapshot()), model)
        XCTAssertEqual(try contents(of: openStore(fileSystem, readOnly: true, salvage: true).snapshot()), model)
    }

    /// A read-only open that reads a MANIFEST, then finds one of its segments gone because the
    /// writer compacted meanwhile, starts over with the new MANIFEST.
    func testReadOnlyOpenStartsOverWhenACompactionReplacesItsSegments() throws {
        let memory = MemoryFileSystem()
        let (store, model) = try churnedStore(memory)
        let first = try manifest(memory).segments.first!
        let interleaving = InterleavingFileSystem(base: memory)
        interleaving.beforeFirstExists(of: "/db/" + SegmentFile.name(for: first + 1)) {
            _ = try? store.compact()
        }
        let reader = try openStore(interleaving, readOnly: true)
        XCTAssertTrue(interleaving.fired)
        XCTAssertEqual(try contents(of: reader.snapshot()), model)
        XCTAssertEqual(try manifest(memory).version, 2, "the writer did compact during the open")
    }

    func testSegmentKindByteAndManifestVersions() throws {
        // The kind byte round-trips; an unknown kind is a newer format.
        let header = SegmentHeader(segmentNumber: 9, kind: .compacted, seal: .random())
        var bytes = header.encoded()
        XCTAssertEqual(bytes[24], 1)
        XCTAssertEqual(try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "x") }, header)
        XCTAssertEqual(SegmentHeader(segmentNumber: 9, seal: .random()).encoded()[24], 0, "log segments keep the old zero byte")
        bytes[24] = 2
        bytes.withUnsafeMutableBytes { raw in
            raw.storeLittleEndian(CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))), at: 60)
        }
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "x") }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .unsupportedFormat)
            XCTAssertEqual((error as? StrataError)?.offset, 24)
        }

        // Version 1 lists log segments in increasing order; version 2 any order, no duplicates.
        let v1 = Manifest(segments: [1, 2, 3], lastSequence: 5)
        XCTAssertEqual(v1.encoded()[8], 1)
        XCTAssertEqual(try Manifest.decode(v1.encoded(), file: "m"), v1)
        XCTAssertThrowsError(try Manifest.decode(Manifest(segments: [4, 3], lastSequence: 5).encoded(), file: "m")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        let v2 = Manifest(segments: [9, 10, 4, 11], lastSequence: 5, listsCompactedSegments: true)
        XCTAssertEqual(v2.version, 2)
        XCTAssertEqual(try Manifest.decode(v2.encoded(), file: "m"), v2)
        XCTAssertThrowsError(try Manifest.decode(Manifest(segments: [9, 4, 9], lastSequence: 5, version: 2).encoded(), file: "m")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 24 + 8)
        }
        XCTAssertThrowsError(try Manifest.decode(Manifest(segments: [1], lastSequence: 0, version: 3).encoded(), file: "m")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .unsupportedFormat)
        }
    }

    // MARK: - Corruption

    /// A compacted store, closed, with the compacted segments' names and the model.
    func compactedStore() throws -> (MemoryFileSystem, [UInt32], Contents) {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try churnedStore(fileSystem)
        _ = try store.compact()
        try store.close()
        return (fileSystem, Array(try manifest(fileSystem).segments.dropLast()), model)
    }

    func testDamageInACompactedSegmentIsCorruptionWithFileAndOffset() throws {
        let (fileSystem, compacted, _) = try compactedStore()
        let path = "/db/" + SegmentFile.name(for: compacted[0])
        let size = fileSystem.contents(of: path)!.count
        // Damage the payload of the second record.
        let firstLength = 18 + Int(fileSystem.contents(of: path)!.withUnsafeBytes { $0.loadLittleEndian(at: 64 + 4, as: UInt32.self) })
        let second = SegmentHeader.size + firstLength
        fileSystem.corrupt(path: path, at: second + 20, with: [0xEE])
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, path)
            XCTAssertEqual(error.offset, second)
            XCTAssertTrue(error.message.contains("compacted"), error.message)
        }
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        // Salvage keeps what precedes the damage and says where it stopped.
        let salvaged = try openStore(fileSystem, readOnly: true, salvage: true)
        XCTAssertEqual(salvaged.recoveryEvents.map(\.kind), [.salvagedCorruption])
        XCTAssertEqual(salvaged.recoveryEvents.first?.offset, second)
        XCTAssertEqual(salvaged.snapshot().count, 1)
        XCTAssertGreaterThan(size, second)
    }

    func testTornLookingTailOfACompactedSegmentIsStillCorruption() throws {
        let (fileSystem, compacted, _) = try compactedStore()
        // Cut the last compacted segment mid-record: in a log segment's tail this would be a
        // torn write; a compacted segment is synced before it is installed, so it is not.
        let path = "/db/" + SegmentFile.name(for: compacted.last!)
        var bytes = fileSystem.contents(of: path)!
        bytes.removeLast(5)
        fileSystem.setContents(bytes, of: path)
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, path)
            XCTAssertNotNil(error.offset)
        }
    }

    func testCompactedSegmentsMustComeFirstAndNotLast() throws {
        let (fileSystem, compacted, _) = try compactedStore()
        // Roll once more, so that two log segments follow the compacted ones.
        let store = try openStore(fileSystem)
        for i in 0..<40 {
            var filler = WriteBatch()
            filler.put(Array(repeating: UInt8(i), count: 300), forKey: StorageKey(UInt64(i)), in: Keyspace(5))
            try store.commit(filler)
        }
        try store.close()
        let listed = try manifest(fileSystem)
        let logSegments = Array(listed.segments.dropFirst(compacted.count))
        XCTAssertGreaterThanOrEqual(logSegments.count, 2)
        // A compacted segment after a log segment.
        var moved = listed
        moved.segments = [logSegments[0]] + compacted + logSegments.dropFirst()
        fileSystem.setContents(moved.encoded(), of: "/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, "/db/" + SegmentFile.name(for: compacted[0]))
            XCTAssertEqual(error.offset, 24)
            XCTAssertTrue(error.message.contains("after a log segment"), error.message)
        }
        // A MANIFEST that ends with a compacted segment.
        var truncated = listed
        truncated.segments = compacted
        fileSystem.setContents(truncated.encoded(), of: "/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 24)
        }
        // A key copied twice.
        fileSystem.setContents(listed.encoded(), of: "/db/MANIFEST")
        let path = "/db/" + SegmentFile.name(for: compacted[0])
        let bytes = fileSystem.contents(of: path)!
        let firstLength = 18 + Int(bytes.withUnsafeBytes { $0.loadLittleEndian(at: 64 + 4, as: UInt32.self) })
        var copy = Array(bytes[64..<(64 + firstLength)])
        let seal = try sealAndSize(of: path, in: fileSystem).seal
        copy.withUnsafeMutableBytes { RecordEncoder.reseal($0, seal: seal, at: bytes.count) }
        fileSystem.setContents(bytes + copy, of: path)
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.offset, bytes.count)
            XCTAssertTrue(error.message.contains("twice"), error.message)
        }
    }

    func testMissingManifestNextToCompactedDataIsCorruptionNotAWipe() throws {
        let (fileSystem, compacted, _) = try compactedStore()
        try fileSystem.removeFile("/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        for number in compacted {
            XCTAssertNotNil(fileSystem.contents(of: "/db/" + SegmentFile.name(for: number)), "data was deleted")
        }
    }

    func testCorruptLiveRecordAbortsCompactionAndChangesNothing() throws {
        let fileSystem = MemoryFileSystem()
        let (store, _) = try churnedStore(fileSystem)
        // Sealed first, so that the compaction has nothing to seal and may change nothing.
        try sealActiveSegment(of: store)
        let snapshot = store.snapshot()
        let active = try manifest(fileSystem).segments.last!
        let (_, location) = snapshot.index.keyspaces.values.flatMap { $0 }.first { $0.value.segment != active }!
        let path = "/db/" + SegmentFile.name(for: location.segment)
        fileSystem.corrupt(path: path, at: Int(location.offset) + 19, with: [0xAB, 0xCD])
        let filesBefore = try segmentFiles(fileSystem)
        let manifestBefore = fileSystem.contents(of: "/db/MANIFEST")
        XCTAssertThrowsError(try store.compact()) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, path)
            XCTAssertEqual(error.offset, Int(location.offset))
        }
        XCTAssertEqual(try segmentFiles(fileSystem), filesBefore, "the partial output was removed")
        XCTAssertEqual(fileSystem.contents(of: "/db/MANIFEST"), manifestBefore)
        XCTAssertNil(store.writeFailure, "corruption in the input does not stop the store")
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("still"), in: Keyspace(1))
        XCTAssertNoThrow(try store.commit(batch))
    }

    // MARK: - Faults

    func testFailedOutputWriteLeavesTheStoreAsItWas() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty)
        var model: Contents = [:]
        try commitAll(store, makeWorkload(commits: 150, seed: 8), into: &model)
        // Sealed first, so that the segment after the active one is the compaction's output.
        try sealActiveSegment(of: store)
        let filesBefore = try segmentFiles(memory)
        let active = try manifest(memory).segments.last!
        // Fail the write of the first output file (the store's own writes go to the active one).
        faulty.inject(.failWrite(errno: ENOSPC, pathContains: String(format: "%06d.seg", Int(active) + 1), times: 1))
        XCTAssertThrowsError(try store.compact()) { error in
            XCTAssertEqual((error as? StrataError)?.errno, ENOSPC)
        }
        XCTAssertEqual(try segmentFiles(memory), filesBefore)
        XCTAssertNil(store.writeFailure)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        // The store goes on, and the next compaction works.
        try commitAll(store, makeWorkload(commits: 20, seed: 9), into: &model)
        XCTAssertTrue(try store.compact().didCompact)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(memory).snapshot()), model)
    }

    func testFailedManifestInstallIsStickyAndLosesNothing() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty)
        var model: Contents = [:]
        try commitAll(store, makeWorkload(commits: 150, seed: 12), into: &model)
        faulty.inject(.fail(.rename, errno: EIO, pathContains: "MANIFEST", times: 1))
        XCTAssertThrowsError(try store.compact()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
        }
        XCTAssertNotNil(store.writeFailure)
        XCTAssertEqual(try contents(of: store.snapshot()), model, "readers go on")
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("refused"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(batch)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
        try store.close()
        let reopened = try openStore(memory)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        XCTAssertTrue(reopened.recoveryEvents.allSatisfy { $0.kind == .leftoverFileRemoved })
        XCTAssertTrue(try reopened.compact().didCompact)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    // MARK: - Crashes


    /// Runs the workload, compacting after the commits in `compactAfter`, until the
    /// file system's `crashAt`-th sync; captures the crash images there.
    func runUntilCrash(
        _ batches: [WriteBatch], durabilities: [Durability], compactAfter: Set<Int>, crashAt: Int?,
        dictionaries: Store.DictionaryCompression = .automatic
    ) -> (images: [(String, MemoryFileSystem)], acknowledged: Int, syncs: Int, compactions: Int) {
        let (fileSystem, images) = crashingFileSystem(at: crashAt)
        var acknowledged = 0
        var compactions = 0
        do {
            let store = try openStore(fileSystem, dictionaryCompression: dictionaries)
            for (batch, durability) in zip(batches, durabilities) {
                try store.commit(batch, durability: durability)
                acknowledged += 1
                if compactAfter.contains(acknowledged) {
                    if try store.compact().didCompact { compactions += 1 }
                }
            }
            try store.close()
        } catch {
            // The crash: whatever the store was doing stops here.
        }
        return (images.withLock { $0 }, acknowledged, fileSystem.syncCount, compactions)
    }

    func checkCrashes(
        durabilities: [Durability], seed: UInt64, compactAfter: Set<Int>,
        dictionaries: Store.DictionaryCompression = .automatic, similarValues: Bool = false
    ) throws {
        noteSeed(seed)
        let commits = durabilities.count
        let batches = similarValues
            ? makeSimilarWorkload(commits: commits, seed: seed) : makeWorkload(commits: commits, seed: seed)
        let states = prefixStates(of: batches)
        let clean = runUntilCrash(
            batches, durabilities: durabilities, compactAfter: compactAfter, crashAt: nil, dictionaries: dictionaries)
        XCTAssertEqual(clean.compactions, compactAfter.count, "every planned compaction should have work")
        let total = clean.syncs

        var imagesChecked = 0
        var compactedImages = 0
        var dictionaryImages = 0
        for point in 1...total {
            let run = runUntilCrash(
                batches, durabilities: durabilities, compactAfter: compactAfter, crashAt: point, dictionaries: dictionaries)
            XCTAssertEqual(run.images.count, 4, "no crash image at sync \(point)")
            let mustHave = (0..<run.acknowledged).last { durabilities[$0] == .full }.map { $0 + 1 } ?? 0
            for (policy, image) in run.images {
                let context = "sync point \(point)/\(total), policy \(policy), \(run.acknowledged) acknowledged"
                let store: Store
                do {
                    store = try openStore(image, dictionaryCompression: dictionaries)
                } catch {
                    XCTFail("reopen failed at \(context): \(error)")
                    continue
                }
                if try Manifest.read(in: "/db", fileSystem: image)?.version == 2 { compactedImages += 1 }
                if try hasDictionarySegment(image) { dictionaryImages += 1 }
                let recovered = try contents(of: store.snapshot())
                let candidates = mustHave...min(run.acknowledged + 1, commits)
                let recoveredPrefix = Int(store.sequence)
                XCTAssertTrue(candidates.contains(recoveredPrefix),
                              "recovered sequence \(recoveredPrefix) is outside \(candidates) at \(context)")
                if candidates.contains(recoveredPrefix) {
                    XCTAssertTrue(states[recoveredPrefix] == recovered,
                                  "recovered state is not the state after \(recoveredPrefix) commits at \(context)")
                }
                // Every listed segment is there, and nothing else is left.
                let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: image)).segments
                XCTAssertEqual(Set(try image.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") }),
                               Set(listed.map(SegmentFile.name(for:))), "leftovers at \(context)")

                // The recovered store goes on: it compacts, commits, and a clean reopen sees it.
                _ = try store.compact()
                XCTAssertEqual(try contents(of: store.snapshot()), recovered, "compaction after recovery changed data at \(context)")
                var extra = WriteBatch()
                extra.put([1, 2, 3], forKey: StorageKey("after-crash"), in: Keyspace(9))
                try store.commit(extra)
                try store.close()
                let again = try openStore(image)
                var expected = recovered
                expected[Keyspace(9), default: [:]][StorageKey("after-crash")] = [1, 2, 3]
                XCTAssertEqual(try contents(of: again.snapshot()), expected, "state changed across a clean reopen at \(context)")
                try again.close()
                imagesChecked += 1
            }
        }
        XCTAssertEqual(imagesChecked, total * 4)
        XCTAssertGreaterThan(compactedImages, total, "many images should hold compacted segments")
        if dictionaries == .always {
            XCTAssertGreaterThan(dictionaryImages, total, "many images should hold segments with a dictionary")
        }
    }

    /// Whether a listed segment of `image` names a dictionary in its header.
    func hasDictionarySegment(_ image: MemoryFileSystem) throws -> Bool {
        let listed = try Manifest.read(in: "/db", fileSystem: image)?.segments ?? []
        return try listed.contains { number in
            guard let bytes = image.contents(of: "/db/" + SegmentFile.name(for: number)) else { return false }
            return try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "") }.dictionaryID != 0
        }
    }

    func testCrashAtEverySyncPointAroundCompactionsWithDictionaries() throws {
        try checkCrashes(
            durabilities: Array(repeating: .full, count: 120), seed: 53, compactAfter: [40, 80, 105],
            dictionaries: .always, similarValues: true)
    }

    func testCrashAtEverySyncPointAroundCompactionsWithFullDurability() throws {
        try checkCrashes(durabilities: Array(repeating: .full, count: 120), seed: 51, compactAfter: [40, 80, 105])
    }

    func testCrashAtEverySyncPointAroundCompactionsWithMixedDurability() throws {
        var random = seededGenerator(17)
        let durabilities: [Durability] = (0..<120).map { _ in
            Int.random(in: 0..<3, using: &random) == 0 ? .full : .none
        }
        try checkCrashes(durabilities: durabilities, seed: 52, compactAfter: [40, 80, 105])
    }
}

/// Forwards to a file system, and runs an action once, before the first `exists` check of a
/// chosen path (to interleave a writer's compaction with a read-only open).
final class InterleavingFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let base: any FileSystem
    var forwardedTo: any FileSystem { base }
    private let state = Locked<(path: String?, action: (() -> Void)?, fired: Bool)>((nil, nil, false))

    init(base: any FileSystem) { self.base = base }

    func beforeFirstExists(of path: String, _ action: @escaping () -> Void) {
        state.withLock { $0 = (path, action, false) }
    }

    var fired: Bool { state.withLock { $0.fired } }

    func exists(_ path: String) -> Bool {
        let action: (() -> Void)? = state.withLock { state in
            guard !state.fired, state.path == path else { return nil }
            state.fired = true
            return state.action
        }
        action?()
        return base.exists(path)
    }
}
