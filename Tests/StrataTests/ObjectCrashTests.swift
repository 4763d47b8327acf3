import Foundation
@_spi(Testing) import Strata
import StrataStorage
import XCTest

/// The object-level crash suite. A seeded object workload (ObjectCrashWorkload.swift) runs on a
/// `MemoryFileSystem` with small segments and a compaction every few writes; before every sync
/// the file system's hook takes crash images: every unsynced write kept, all dropped, each torn
/// after its first sector, and random keep/drop/tear mixes. For every image the oracle is:
/// - the database reopens;
/// - its records are exactly those after some commit k with durable ≤ k ≤ acknowledged + 1,
///   where durable counts the commits up to the last acknowledged one with durability `.full`
///   (all of them when every write is `.full`): a prefix, so no hole and no deleted object back;
/// - the objects read through the model classes are those after commit k, and no read finds
///   damage (`readFailure`);
/// - the integrity checker finds no problem;
/// - a new write works and reads back, and the checker still finds none;
/// - a crash at each sync of its reopen (recovery), unsynced writes kept or dropped, leaves an
///   image that passes the same checks.
///
/// An image taken at sync N is what a power loss just before sync N would leave, so one run of
/// the workload yields the crash states of every sync point.
///
/// `STRATA_OBJECT_CRASH_STATES=N` runs seeds until N distinct crash images are checked (see
/// Tests/Scripts/object-crash.sh); `STRATA_OBJECT_CRASH_SEED` picks the first seed, to replay one.
final class ObjectCrashTests: XCTestCase {
    struct Figures {
        var syncPoints = 0
        var states = 0
        /// Images of a crash during the reopen (recovery) of a crash image.
        var recoveryCrashStates = 0
        /// Compactions that rewrote segments.
        var compactions = 0
        /// The images checked: their run's seed, a fingerprint of their files and the range of
        /// commits allowed.
        var distinctImages = Set<DistinctImage>()
    }

    struct DistinctImage: Hashable {
        var seed: UInt64
        var fingerprint: Int
        var allowed: ClosedRange<Int>
    }

    private static let directory = "/db"
    /// The key the databases of a run are encrypted with (nil: not encrypted).
    private var encryptionKey: [UInt8]?

    func open(_ fileSystem: MemoryFileSystem, durability: Durability = .full) throws -> Database {
        var configuration = Database.Configuration(
            directory: URL(fileURLWithPath: Self.directory), objectTypes: ObjectCrashWorkload.types,
            durability: durability)
        configuration.storageOptions.fileSystem = fileSystem
        configuration.storageOptions.segmentSize = 4096
        configuration.storageOptions.encryptionKey = encryptionKey
        return try Database(configuration: configuration)
    }

    func testEverySyncPointOfAnObjectWorkloadRecovers() throws {
        var figures = Figures()
        try run(seed: 1, writes: 20, compactEvery: 6, randomPolicies: 1, mixedDurability: false, figures: &figures)
        XCTAssertGreaterThan(figures.syncPoints, 20, "the workload should sync at every write")
        XCTAssertGreaterThan(figures.compactions, 0, "segments should roll, so that compaction has work")
        print("object crash suite, seed 1: \(figures.syncPoints) sync points, \(figures.states) crash states, \(figures.distinctImages.count) distinct images, \(figures.recoveryCrashStates) during recovery")
    }

    /// The same oracle on an encrypted database: recovery, compaction and the crash images
    /// of both go through the cipher.
    func testEverySyncPointOfAnEncryptedObjectWorkloadRecovers() throws {
        encryptionKey = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var figures = Figures()
        try run(seed: 3, writes: 24, compactEvery: 6, randomPolicies: 2, mixedDurability: true, figures: &figures)
        XCTAssertGreaterThan(figures.syncPoints, 8)
        XCTAssertGreaterThan(figures.compactions, 0, "segments should roll, so that compaction has work")
        print("object crash suite, seed 3 (encrypted): \(figures.syncPoints) sync points, \(figures.states) crash states, \(figures.distinctImages.count) distinct images")
    }

    /// Two thirds of the writes go through a `Database` with durability `.none`: what must
    /// survive is every commit up to the last acknowledged `.full` one.
    func testEverySyncPointOfAnObjectWorkloadWithUnsyncedWritesRecovers() throws {
        var figures = Figures()
        try run(seed: 2, writes: 24, compactEvery: 8, randomPolicies: 2, mixedDurability: true, figures: &figures)
        XCTAssertGreaterThan(figures.syncPoints, 8)
        print("object crash suite, seed 2 (mixed durability): \(figures.syncPoints) sync points, \(figures.states) crash states, \(figures.distinctImages.count) distinct images")
    }

    func testManyCrashStates() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let target = environment["STRATA_OBJECT_CRASH_STATES"].flatMap(Int.init) else {
            throw XCTSkip("set STRATA_OBJECT_CRASH_STATES to run the long crash suite (Tests/Scripts/object-crash.sh)")
        }
        var seed = environment["STRATA_OBJECT_CRASH_SEED"].flatMap(UInt64.init) ?? 100
        var figures = Figures()
        var seeds = 0
        while figures.distinctImages.count < target {
            try run(seed: seed, writes: 40, compactEvery: 7, randomPolicies: 6, mixedDurability: seed % 2 == 1, figures: &figures)
            seed += 1
            seeds += 1
        }
        print("object crash suite: \(seeds) seeds, \(figures.syncPoints) sync points, \(figures.states) crash states, \(figures.distinctImages.count) distinct crash images, \(figures.recoveryCrashStates) crash states during their recovery, \(figures.compactions) compactions")
    }

    /// Runs `writes` writes of the workload of `seed`, compacting every `compactEvery`, and
    /// checks the crash images of every sync point (the open's included). With
    /// `mixedDurability`, a seeded two thirds of the writes use durability `.none`.
    private func run(
        seed: UInt64, writes: Int, compactEvery: Int, randomPolicies: Int, mixedDurability: Bool, figures: inout Figures
    ) throws {
        let fileSystem = MemoryFileSystem()
        let captures = CrashCaptures()
        fileSystem.setSyncHook { [unowned fileSystem] event in
            let images = Self.policies(seed: seed, point: event.number, random: randomPolicies).map { name, policy in
                (name, fileSystem.crashImage(policy))
            }
            captures.add(syncPoint: event.number, images: images)
        }
        // The records and objects after each acknowledged commit; index 0 is before the open.
        var states: [StoredRecords] = [[:]]
        var dumps: [[String]] = []
        var workload = ObjectCrashWorkload(seed: seed)
        var durabilities = SplitMix64(seed: seed ^ 0xD0AB)
        do {
            let db = try open(fileSystem)
            let fast = try open(fileSystem, durability: .none)
            func acknowledge(durable: Bool) throws {
                captures.acknowledge(durable: durable)
                db.refresh()
                states.append(try db.storeSnapshot.storedRecords())
                dumps.append(db.crashWorkloadDump())
            }
            try acknowledge(durable: true)
            dumps.insert(dumps[0], at: 0)   // an empty store reopens as an empty database
            try check(captures.take(), states: states, dumps: dumps, seed: seed, figures: &figures)
            for index in 1...writes {
                let durable = !mixedDurability || Int.random(in: 0..<3, using: &durabilities) == 0
                let before = db.storeSnapshot.sequence
                try workload.step(durable ? db : fast)
                // A write that changed nothing commits nothing, so it syncs nothing either.
                try acknowledge(durable: durable && db.storeSnapshot.sequence != before)
                try check(captures.take(), states: states, dumps: dumps, seed: seed, figures: &figures)
                if index % compactEvery == 0, try db.compact().didCompact { figures.compactions += 1 }
            }
        }
        try check(captures.take(), states: states, dumps: dumps, seed: seed, figures: &figures)
        fileSystem.setSyncHook(nil)
    }

    /// The crash policies of one sync point: three fixed ones and `random` seeded mixes.
    private static func policies(seed: UInt64, point: Int, random: Int) -> [(String, MemoryFileSystem.CrashPolicy)] {
        var policies: [(String, MemoryFileSystem.CrashPolicy)] = [
            ("keep all", .keepAll), ("drop all", .dropAll),
            ("tear each write after its first sector", .custom { _, _ in .tear(keepingSectors: 1) }),
        ]
        for index in 0..<random {
            let mix = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(point) << 16 ^ UInt64(index)
            policies.append(("random \(mix)", .random(seed: mix)))
        }
        return policies
    }

    private func check(
        _ captured: [CrashCaptures.Capture], states: [StoredRecords], dumps: [[String]], seed: UInt64,
        figures: inout Figures
    ) throws {
        for capture in captured {
            figures.syncPoints += 1
            for (policy, image) in capture.images {
                figures.states += 1
                let allowed = capture.durable...min(capture.acknowledged + 1, states.count - 1)
                // The same files with the same allowed commits give the same outcome.
                guard figures.distinctImages.insert(DistinctImage(seed: seed, fingerprint: Self.fingerprint(image), allowed: allowed)).inserted else { continue }
                let context = "seed \(seed), sync point \(capture.syncPoint), policy \(policy), \(capture.acknowledged) commit(s) acknowledged, \(capture.durable) durable"
                try checkCrashesDuringRecovery(of: image, allowed: allowed, states: states, dumps: dumps, context: context, figures: &figures)
                try checkImage(image, allowed: allowed, states: states, dumps: dumps, context: context)
            }
        }
    }

    /// Crashes the reopen of `image` at each of its syncs (recovery cutting and syncing the log,
    /// a first catalog commit), unsynced writes kept and dropped: each such image must recover
    /// as `image` itself may.
    private func checkCrashesDuringRecovery(
        of image: MemoryFileSystem, allowed: ClosedRange<Int>, states: [StoredRecords], dumps: [[String]],
        context: String, figures: inout Figures
    ) throws {
        let copy = image.crashImage(.keepAll)
        let captures = CrashCaptures()
        copy.setSyncHook { [unowned copy] event in
            captures.add(syncPoint: event.number, images: [("keep all", copy.crashImage(.keepAll)), ("drop all", copy.crashImage(.dropAll))])
        }
        _ = try? open(copy)   // a failure shows when `image` itself is checked
        copy.setSyncHook(nil)
        for capture in captures.take() {
            for (policy, second) in capture.images {
                figures.recoveryCrashStates += 1
                let secondContext = "\(context), then a crash at sync \(capture.syncPoint) of the reopen, policy \(policy)"
                try checkImage(second, allowed: allowed, states: states, dumps: dumps, context: secondContext)
            }
        }
    }

    /// Checks one crash image against the oracle. With `states`, the recovered records must be
    /// those after a commit in `allowed`; without them (another run's records differ in their
    /// random embedded identities), the objects read back must be.
    func checkImage(
        _ image: MemoryFileSystem, allowed: ClosedRange<Int>, states: [StoredRecords]?, dumps: [[String]], context: String
    ) throws {
        var commit: Int?
        if let states {
            let recovered: StoredRecords
            do {
                recovered = try Self.recoveredRecords(image, key: encryptionKey)
            } catch {
                return XCTFail("a read-only open failed at \(context): \(error)")
            }
            commit = allowed.last { states[$0] == recovered }
            if commit == nil {
                let matches = states.indices.filter { states[$0] == recovered }
                return XCTFail("the records are not those after \(allowed) commits (they are those after \(matches)) at \(context)")
            }
        }
        let db: Database
        do {
            db = try open(image)
        } catch {
            return XCTFail("reopen failed at \(context): \(error)")
        }
        let dump = db.crashWorkloadDump()
        XCTAssertNil(db.readFailure, "a read found damage at \(context)")
        if let commit {
            XCTAssertEqual(dump, dumps[commit], "objects differ from commit \(commit) at \(context)")
        } else if !allowed.contains(where: { dumps[$0] == dump }) {
            XCTFail("the objects are not those after \(allowed) commits (they are those after \(dumps.indices.filter { dumps[$0] == dump })) at \(context)")
        }
        let report = db.checkIntegrity()
        XCTAssertTrue(report.isClean, "\(report) at \(context)")
        try db.write {
            let owner = Owner(value: ["id": 99, "name": "after the crash"])
            owner.pet = Pet(value: ["name": "after-crash"])
            try db.add(owner, update: .all)
        }
        XCTAssertEqual(db.object(ofType: Owner.self, forPrimaryKey: 99)?.pet?.name, "after-crash", "write after recovery at \(context)")
        let after = db.checkIntegrity()
        XCTAssertTrue(after.isClean, "after a new write: \(after) at \(context)")
    }

    /// The records of an image, read-only (none when the store was never created).
    private static func recoveredRecords(_ image: MemoryFileSystem, key: [UInt8]?) throws -> StoredRecords {
        var options = Store.Options()
        options.fileSystem = image
        options.readOnly = true
        options.encryptionKey = key
        do {
            return try Store(directory: directory, options: options).snapshot().storedRecords()
        } catch StrataError.notFound {
            return [:]
        }
    }

    private static func fingerprint(_ image: MemoryFileSystem) -> Int {
        var hasher = Hasher()
        for name in ((try? image.contentsOfDirectory(directory)) ?? []).sorted() {
            hasher.combine(name)
            hasher.combine(image.contents(of: directory + "/" + name))
        }
        return hasher.finalize()
    }
}

/// What the sync hook captured, and how many commits had been acknowledged then (all, and up to
/// the last durable one). The hook runs on the committing thread; the lock makes the type
/// `Sendable` for it.
final class CrashCaptures: @unchecked Sendable {
    struct Capture {
        let syncPoint: Int
        let acknowledged: Int
        /// The acknowledged commits up to the last one with durability `.full`.
        let durable: Int
        let images: [(String, MemoryFileSystem)]
    }

    private let lock = NSLock()
    private var captures: [Capture] = []
    private var acknowledged = 0
    private var durable = 0

    func acknowledge(durable isDurable: Bool) {
        lock.withLock {
            acknowledged += 1
            if isDurable { durable = acknowledged }
        }
    }

    func add(syncPoint: Int, images: [(String, MemoryFileSystem)]) {
        lock.withLock {
            captures.append(Capture(syncPoint: syncPoint, acknowledged: acknowledged, durable: durable, images: images))
        }
    }

    /// The captures so far, removing them.
    func take() -> [Capture] {
        lock.withLock {
            defer { captures = [] }
            return captures
        }
    }
}
