import Dispatch
import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// `Configuration.readOnly`: nothing is written, and the database follows commits made through
/// another store of the same files (another process, or here a second view of an in-memory
/// file system, which the watcher polls).
final class ReadOnlyDatabaseTests: DatabaseTestCase {
    /// The same in-memory files seen through another `FileSystem` object, so that a database
    /// opened through it gets a store of its own (as another process would).
    final class SecondView: FileSystem, @unchecked Sendable {
        let base: MemoryFileSystem
        init(_ base: MemoryFileSystem) { self.base = base }
        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { try base.open(path, mode: mode) }
        func exists(_ path: String) -> Bool { base.exists(path) }
        func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
        func createDirectory(_ path: String) throws { try base.createDirectory(path) }
        func removeFile(_ path: String) throws { try base.removeFile(path) }
        func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
        func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
        func lock(_ path: String) throws -> any FileLock { try base.lock(path) }
    }

    private func configuration(readOnly: Bool, fileSystem: (any FileSystem)? = nil,
                               types: [ObjectBase.Type] = [Dog.self]) -> Database.Configuration {
        var configuration = Database.Configuration(directory: directory, objectTypes: types, schemaVersion: 1)
        configuration.readOnly = readOnly
        if let fileSystem { configuration.storageOptions.fileSystem = fileSystem }
        return configuration
    }

    private func addDog(_ name: String, age: Int, to db: Database) throws {
        try db.write {
            let dog = Dog()
            dog.name = name
            dog.age = age
            try db.add(dog)
        }
    }

    /// The names of the files in the database directory with their sizes.
    private func files() throws -> [String: Int] {
        var sizes: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            sizes[name] = (attributes[.size] as? Int) ?? -1
        }
        return sizes
    }

    func testWritesOnAReadOnlyDatabaseThrowReadOnlyAndWriteNothing() async throws {
        try addDog("Rex", age: 3, to: try Database(configuration: configuration(readOnly: false)))
        let before = try files()
        let db = try Database(configuration: configuration(readOnly: true))
        XCTAssertThrowsError(try db.write { try db.add(Dog()) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
        XCTAssertThrowsError(try db.beginWrite()) { XCTAssertEqual(($0 as? StrataError)?.code, .readOnly) }
        do {
            try await db.asyncWrite { try db.add(Dog()) }
            XCTFail("asyncWrite on a read-only database")
        } catch {
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
        }
        XCTAssertFalse(db.isInWriteTransaction)
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Rex"])
        XCTAssertEqual(try files(), before)
    }

    func testAReadOnlyOpenWhoseClassesAreNotAllStoredThrowsAndWritesNothing() throws {
        try addDog("Rex", age: 3, to: try Database(configuration: configuration(readOnly: false)))
        let before = try files()
        XCTAssertThrowsError(try Database(configuration: configuration(readOnly: true, types: [Dog.self, Counter.self]))) {
            XCTAssertEqual(($0 as? StrataError)?.code, .readOnly)
            XCTAssertTrue("\($0)".contains("does not hold Counter; open it writable once to store the schema"), "\($0)")
        }
        var newer = configuration(readOnly: true)
        newer.schemaVersion = 2
        XCTAssertThrowsError(try Database(configuration: newer)) {
            XCTAssertEqual(($0 as? StrataError)?.code, .readOnly)
            XCTAssertTrue("\($0)".contains("schema version 2 above the stored 1"), "\($0)")
        }
        XCTAssertEqual(try files(), before)
    }

    func testAReadOnlyOpenOfADirectoryWithoutADatabaseThrowsNotFound() throws {
        XCTAssertThrowsError(try Database(configuration: configuration(readOnly: true))) {
            XCTAssertEqual(($0 as? StrataError)?.code, .notFound)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "nothing was created")
    }

    func testRefreshReadsAnotherStoresCommits() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try Database(configuration: configuration(readOnly: false, fileSystem: fileSystem))
        try addDog("Rex", age: 3, to: writer)
        let reader = try Database(configuration: configuration(readOnly: true, fileSystem: SecondView(fileSystem)))
        XCTAssertFalse(reader.shared === writer.shared, "a store of its own")
        XCTAssertEqual(reader.objects(Dog.self).count, 1)
        XCTAssertFalse(reader.refresh())
        try addDog("Fido", age: 5, to: writer)
        XCTAssertEqual(reader.objects(Dog.self).count, 1, "no observer: nothing follows until a refresh")
        XCTAssertTrue(reader.refresh())
        XCTAssertEqual(reader.objects(Dog.self).map(\.name).sorted(), ["Fido", "Rex"])
        XCTAssertFalse(reader.refresh())
        XCTAssertNil(reader.readFailure)
    }

    func testARefreshThatFindsDamageKeepsTheVersionAndReportsIt() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try Database(configuration: configuration(readOnly: false, fileSystem: fileSystem))
        try addDog("Rex", age: 3, to: writer)
        let reader = try Database(configuration: configuration(readOnly: true, fileSystem: SecondView(fileSystem)))
        let segment = directory.appendingPathComponent("000001.seg").path
        let damaged = try XCTUnwrap(fileSystem.contents(of: segment)).count + 20
        try addDog("Fido", age: 5, to: writer)
        try addDog("Max", age: 7, to: writer)  // synced past the damage: no torn write explains it
        let original = try XCTUnwrap(fileSystem.contents(of: segment))[damaged]
        fileSystem.corrupt(path: segment, at: damaged, with: [original ^ 0x5A])
        XCTAssertFalse(reader.refresh())
        XCTAssertEqual(reader.readFailure?.code, .corruption)
        XCTAssertEqual(reader.objects(Dog.self).map(\.name), ["Rex"], "still the version it read")
    }

    func testObserversOfAReadOnlyDatabaseFollowThroughThePollingWatcher() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try Database(configuration: configuration(readOnly: false, fileSystem: fileSystem))
        try addDog("Rex", age: 3, to: writer)
        let reader = try Database(configuration: configuration(readOnly: true, fileSystem: SecondView(fileSystem)))
        let log = DeliveryLog<[Int]>()
        let token = reader.objects(Dog.self).where { $0.age > 2 }.sorted(by: \.name).observe { change in
            switch change {
            case .initial: log.append([])
            case .update(_, _, let insertions, _): log.append(insertions)
            case .error(let error): XCTFail("\(error)")
            }
        }
        log.wait(timeout: 30) { $0.count == 1 }
        XCTAssertEqual(reader.shared.follower?.watchesWithInotify, false, "the in-memory file system is polled")
        try addDog("Fido", age: 5, to: writer)
        log.wait(timeout: 30) { $0.count == 2 }
        XCTAssertEqual(log.all.last, [0], "Fido sorts before Rex")
        token.invalidate()
        XCTAssertEqual(reader.shared.follower?.isWatching, false)
    }

    /// The watcher's thread and descriptors go with the last observer, and with the database.
    func testTheWatcherLeavesNoThreadOrDescriptorBehind() throws {
        try addDog("Rex", age: 3, to: try Database(configuration: configuration(readOnly: false)))
        ChangeObserver.defaultQueue.sync {}
        let descriptors = Self.openDescriptors()
        XCTAssertTrue(Self.waitForFollowThreads(0), "no watcher from an earlier test")
        do {
            let reader = try Database(configuration: configuration(readOnly: true))
            let log = DeliveryLog<Int>()
            let token = reader.objects(Dog.self).observe { _ in log.append(1) }
            log.wait(timeout: 30) { $0.count == 1 }
            XCTAssertTrue(Self.waitForFollowThreads(1), "the watcher thread runs")
            token.invalidate()
            XCTAssertTrue(Self.waitForFollowThreads(0), "stopped with the last observer")
            _ = reader.objects(Dog.self).observe { _ in log.append(2) }  // the token goes at once
            let kept = reader.objects(Dog.self).observe { _ in log.append(3) }
            log.wait(timeout: 30) { $0.contains(3) }
            XCTAssertTrue(Self.waitForFollowThreads(1), "the watcher thread runs")
            _ = kept
        }
        ChangeObserver.defaultQueue.sync {}  // the observers' databases are released there
        XCTAssertTrue(Self.waitForFollowThreads(0), "stopped with the database")
        XCTAssertEqual(Self.openDescriptors(), descriptors, "every descriptor closed")
    }

    /// Waits (up to 30 s) until `count` watcher threads run: one that was started may not have
    /// named itself yet, one that was stopped has closed its descriptors (`stop()` waits for
    /// that) but may still be leaving.
    private static func waitForFollowThreads(_ count: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 30)
        while followThreads() != count {
            guard Date() < deadline else { return false }
            usleep(1000)
        }
        return true
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// The threads of this process named "strata.follow".
    private static func followThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "strata.follow"
        }.count
    }
}
