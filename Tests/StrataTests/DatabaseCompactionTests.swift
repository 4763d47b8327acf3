import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// `Database.compact() async`, the background compactor's update stream, and the files a
/// frozen view keeps: they go when it goes.
final class DatabaseCompactionTests: XCTestCase {
    /// A database on `fileSystem` with 4 KiB segments, 200 dogs renamed 5 times each (so most
    /// of the log is dead), and the background compactor as `policy` says.
    func filledDatabase(_ fileSystem: MemoryFileSystem, policy: CompactionPolicy = .manual) throws -> Database {
        var configuration = Database.Configuration(directory: URL(fileURLWithPath: "/db"), objectTypes: [Dog.self])
        configuration.storageOptions.fileSystem = fileSystem
        configuration.storageOptions.segmentSize = 4096
        configuration.compaction = policy
        let db = try Database(configuration: configuration)
        var dogs: [Dog] = []
        try db.write {
            for i in 0..<200 {
                let dog = Dog()
                dog.name = "dog \(i)"
                dog.age = i
                try db.add(dog)
                dogs.append(dog)
            }
        }
        for round in 1...5 {
            try db.write { for dog in dogs { dog.name = "dog \(dog.age) round \(round) " + String(repeating: "x", count: 40) } }
        }
        return db
    }

    func names(_ db: Database) -> Set<String> { Set(db.objects(Dog.self).map(\.name)) }

    func segmentFiles(_ fileSystem: MemoryFileSystem) throws -> Set<String> {
        Set(try fileSystem.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") })
    }

    func testAsyncCompactKeepsEveryObject() async throws {
        let db = try filledDatabase(MemoryFileSystem())
        let before = names(db)
        let report = try await db.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertGreaterThan(report.bytesReclaimed, 0)
        XCTAssertEqual(names(db), before)
        XCTAssertEqual(before.count, 200)
    }

    func testAsyncCompactInACancelledTaskThrowsAndChangesNothing() async throws {
        let memory = MemoryFileSystem()
        let db = try filledDatabase(memory)
        let before = names(db)
        let files = try segmentFiles(memory)
        withUnsafeCurrentTask { $0?.cancel() }
        do {
            try await db.compact()
            XCTFail("a cancelled task's compaction ran")
        } catch is CancellationError {
        }
        XCTAssertEqual(try segmentFiles(memory), files)
        XCTAssertEqual(names(db), before)
    }

    func testUpdatesShowARunAndEndWhenTheLastDatabaseGoes() throws {
        let memory = MemoryFileSystem()
        var db: Database? = try filledDatabase(memory)
        let updates = try XCTUnwrap(db).backgroundCompactionUpdates
        let seen = Locked<[BackgroundCompactionStatus]>([])
        let ended = expectation(description: "the stream ended")
        Task {
            for await status in updates { seen.withLock { $0.append(status) } }
            ended.fulfill()
        }
        db = nil
        wait(for: [ended], timeout: 60)
        XCTAssertEqual(seen.withLock { $0.count }, 1, "manual: the current status, then the end")

        db = try filledDatabase(MemoryFileSystem(), policy: .automatic(minimumDeadRatio: 0.3, minimumBytes: 8192))
        let database = try XCTUnwrap(db)
        database.shared.store.waitForBackgroundCompaction()
        XCTAssertGreaterThan(database.backgroundCompaction.completedRuns, 0, "the renames sealed segments; it compacted")
        let run = expectation(description: "a run reported")
        let statuses = Locked<[BackgroundCompactionStatus]>([])
        let stream = database.backgroundCompactionUpdates
        Task {
            for await status in stream {
                statuses.withLock { $0.append(status) }
                if status.isRunning { run.fulfill(); break }
            }
        }
        try database.write { for dog in database.objects(Dog.self) { dog.name += "!" } }
        database.shared.store.scheduleBackgroundCompaction()
        wait(for: [run], timeout: 60)
        XCTAssertEqual(statuses.withLock { $0 }.first?.isRunning, false)
    }

    func testReleasingTheLastFrozenViewRemovesTheReplacedFiles() throws {
        let memory = MemoryFileSystem()
        let db = try filledDatabase(memory)
        let before = names(db)
        var frozen: Database? = db.freeze()
        let filesBefore = try segmentFiles(memory)
        let report = try db.compact()
        XCTAssertGreaterThan(report.segmentsCompacted, 0)
        let live = db.shared.store.statistics().segments
        XCTAssertEqual(try segmentFiles(memory).count, live + report.segmentsCompacted, "the frozen view still reads the replaced files")
        XCTAssertEqual(try XCTUnwrap(frozen).objects(Dog.self).count, 200)

        frozen = nil
        let filesAfter = try segmentFiles(memory)
        XCTAssertEqual(filesAfter.count, live, "they go with the frozen view, without a reopen or a compaction")
        XCTAssertEqual(filesBefore.subtracting(filesAfter).count, report.segmentsCompacted)
        XCTAssertEqual(names(db), before)
    }

    func testALiveDatabaseLetsGoOfTheReplacedFilesAtItsNextRead() throws {
        let memory = MemoryFileSystem()
        let db = try filledDatabase(memory)
        let other = try Database(configuration: db.configuration)
        let before = names(other)  // `other` now reads the version before the compaction
        let report = try db.compact()
        let live = db.shared.store.statistics().segments
        XCTAssertEqual(try segmentFiles(memory).count, live + report.segmentsCompacted, "`other` has not read since")
        XCTAssertEqual(names(other), before, "its next read moves it to the compacted files")
        XCTAssertEqual(try segmentFiles(memory).count, live)
    }
}
