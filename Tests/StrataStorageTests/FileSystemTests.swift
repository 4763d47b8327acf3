// Tests for the file-system seam: PosixFileSystem against a temporary directory,
// MemoryFileSystem's crash simulation, and FaultInjectingFileSystem's fault rules.
import Foundation
import Synchronization
import XCTest

@_spi(Testing) @testable import StrataStorage

/// Asserts that `body` throws a StrataError with `code` (and `errno`, when given); returns it.
@discardableResult
private func assertStrataError(
    _ code: StrataError.Code, errno: Int32? = nil, file: StaticString = #filePath,
    line: UInt = #line, _ body: () throws -> Void
) -> StrataError? {
    do {
        try body()
        XCTFail("expected \(code) error, nothing thrown", file: file, line: line)
    } catch let error as StrataError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        if let errno { XCTAssertEqual(error.errno, errno, "\(error)", file: file, line: line) }
        return error
    } catch {
        XCTFail("expected StrataError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Compares byte arrays, reporting sizes and the first difference instead of dumping them.
private func assertBytes(
    _ actual: [UInt8], _ expected: [UInt8], file: StaticString = #filePath, line: UInt = #line
) {
    guard actual != expected else { return }
    let firstDifference = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }
    XCTFail(
        "bytes differ: sizes \(actual.count) vs \(expected.count), first difference at "
            + "\(firstDifference.map { "\($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "end")",
        file: file, line: line)
}


final class PosixFileSystemTests: XCTestCase {
    private var directory = ""
    private let fs = PosixFileSystem()

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "strata-fs-\(UUID().uuidString)"
        try fs.createDirectory(directory + "/sub/deeper")
        try fs.createDirectory(directory + "/sub")  // already exists: fine
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testRoundTrip() throws {
        let path = directory + "/sub/data"
        let file = try fs.open(path, mode: .createNew)
        try file.write(Array("hello world".utf8), at: 0)
        try file.write(Array("HELLO".utf8), at: 20)
        XCTAssertEqual(try file.size(), 25)
        XCTAssertEqual(try file.readExactly(5, at: 6), Array("world".utf8))
        XCTAssertEqual(try file.readAll()[11..<20], ArraySlice(repeating: 0, count: 9))
        var buffer = [UInt8](repeating: 0, count: 10)
        let n = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 20) }
        XCTAssertEqual(n, 5)
        try file.truncate(to: 5)
        try file.sync()
        XCTAssertEqual(try file.readAll(), Array("hello".utf8))
        try file.close()
        try file.close()
        assertStrataError(.io, errno: EBADF) { _ = try file.size() }
        assertStrataError(.io, errno: EBADF) { try file.write([1], at: 0) }

        assertStrataError(.io, errno: EEXIST) { _ = try fs.open(path, mode: .createNew) }
        let missing = assertStrataError(.notFound) {
            _ = try fs.open(directory + "/nope", mode: .readOnly)
        }
        XCTAssertEqual(missing?.file, directory + "/nope")
        let readOnly = try fs.open(path, mode: .readOnly)
        assertStrataError(.io, errno: EBADF) { try readOnly.write([1], at: 0) }
        try readOnly.close()

        try fs.rename(path, to: directory + "/sub/renamed")
        try fs.syncDirectory(directory + "/sub")
        XCTAssertFalse(fs.exists(path))
        XCTAssertTrue(fs.exists(directory + "/sub/renamed"))
        XCTAssertEqual(try fs.contentsOfDirectory(directory + "/sub").sorted(), ["deeper", "renamed"])
        let again = try fs.open(directory + "/sub/renamed", mode: .readWrite)
        XCTAssertEqual(try again.readAll(), Array("hello".utf8))
        try again.close()
        try fs.removeFile(directory + "/sub/renamed")
        XCTAssertEqual(try fs.contentsOfDirectory(directory + "/sub"), ["deeper"])
        assertStrataError(.notFound) { try fs.removeFile(directory + "/sub/renamed") }
        assertStrataError(.notFound) { try fs.rename(directory + "/x", to: directory + "/y") }
        assertStrataError(.notFound) { _ = try fs.contentsOfDirectory(directory + "/none") }
        let blocker = try fs.open(directory + "/file", mode: .createOrOpen)
        try blocker.close()
        assertStrataError(.io, errno: ENOTDIR) { try fs.createDirectory(directory + "/file") }
    }

    func testWithBytesSeesAppendsAndRejectsPastEndOfFile() throws {
        let path = directory + "/mapped"
        let file = try fs.open(path, mode: .createNew)
        try file.write([UInt8](repeating: 7, count: 100), at: 0)
        XCTAssertEqual(try file.withBytes(at: 0, count: 100) { Array($0) }, [UInt8](repeating: 7, count: 100))
        // Appended through this object, after the first mapping.
        try file.write([1, 2, 3], at: 100)
        XCTAssertEqual(try file.withBytes(at: 99, count: 4) { Array($0) }, [7, 1, 2, 3])
        // Appended through another descriptor: found by refreshing the size.
        let other = try fs.open(path, mode: .readWrite)
        try other.write([9, 9], at: 103)
        try other.close()
        XCTAssertEqual(try file.withBytes(at: 102, count: 3) { Array($0) }, [3, 9, 9])
        // Empty ranges, including at end of file.
        XCTAssertEqual(try file.withBytes(at: 105, count: 0) { $0.count }, 0)
        let pastEnd = assertStrataError(.io) { _ = try file.withBytes(at: 100, count: 6) { _ in 0 } }
        XCTAssertTrue(pastEnd?.message.contains("read past end of file") ?? false)
        assertStrataError(.io) { _ = try file.withBytes(at: 106, count: 0) { _ in 0 } }
        // Past the first 64 MiB mapping: forces a remap (the file is sparse).
        let far = 70 << 20
        try file.write([42, 43], at: far)
        XCTAssertEqual(try file.withBytes(at: far, count: 2) { Array($0) }, [42, 43])
        XCTAssertEqual(try file.withBytes(at: 0, count: 1) { $0[0] }, 7)
        // A shrink is seen too.
        try file.truncate(to: 50)
        assertStrataError(.io) { _ = try file.withBytes(at: 0, count: 51) { _ in 0 } }
        try file.close()
        assertStrataError(.io, errno: EBADF) { _ = try file.withBytes(at: 0, count: 1) { _ in 0 } }
    }

    func testConcurrentReadersWhileWriterAppends() throws {
        let file = try fs.open(directory + "/concurrent", mode: .createNew)
        let records = 2000
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            if worker == 0 {
                for i in 0..<records {
                    try! file.write([UInt8](repeating: UInt8(i % 251), count: 64), at: i * 64)
                }
            } else {
                var checked = 0
                while checked < records {
                    let size = try! file.size()
                    let available = size / 64
                    for i in checked..<available {
                        let ok = try! file.withBytes(at: i * 64, count: 64) {
                            $0.allSatisfy { $0 == UInt8(i % 251) }
                        }
                        XCTAssertTrue(ok)
                    }
                    checked = available
                }
            }
        }
        XCTAssertEqual(try file.size(), records * 64)
        try file.close()
    }

    func testSecondLockInSameProcessIsLocked() throws {
        let path = directory + "/LOCK"
        let lock = try fs.lock(path)
        let error = assertStrataError(.locked) { _ = try fs.lock(path) }
        XCTAssertEqual(error?.file, path)
        lock.unlock()
        lock.unlock()
        var second: (any FileLock)? = try fs.lock(path)
        XCTAssertNotNil(second)
        second = nil  // deinit releases
        try fs.lock(path).unlock()
    }

    func testLockHeldByAnotherProcess() throws {
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs util-linux flock")
        let path = directory + "/LOCK"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // -o: the lock stays with flock itself, not with `sleep`, so terminating flock releases it.
        holder.arguments = ["-n", "-o", path, "sleep", "3"]
        try holder.run()
        defer {
            if holder.isRunning { holder.terminate() }
            holder.waitUntilExit()
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(holder.isRunning)
        let start = Date()
        assertStrataError(.locked) { _ = try fs.lock(path) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        holder.terminate()
        holder.waitUntilExit()
        try fs.lock(path).unlock()
    }
}

final class MemoryFileSystemTests: XCTestCase {
    /// A file system with `/db/file` holding `durable` synced (contents and name).
    private func makeSynced(_ durable: [UInt8]) throws -> (MemoryFileSystem, any StorageFile) {
        let fs = MemoryFileSystem()
        try fs.createDirectory("/db")
        let file = try fs.open("/db/file", mode: .createNew)
        try file.write(durable, at: 0)
        try file.sync()
        try fs.syncDirectory("/db")
        return (fs, file)
    }

    func testKeepAllAndDropAll() throws {
        let (fs, file) = try makeSynced([1, 2, 3, 4])
        try file.write([9, 9], at: 2)
        try file.write([8], at: 6)
        try file.truncate(to: 6)
        XCTAssertEqual(fs.contents(of: "/db/file"), [1, 2, 9, 9, 0, 0])
        XCTAssertEqual(fs.crashImage(.keepAll).contents(of: "/db/file"), [1, 2, 9, 9, 0, 0])
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/file"), [1, 2, 3, 4])
        try file.sync()
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/file"), [1, 2, 9, 9, 0, 0])
    }

    func testTornWriteKeepsWholeFileOffsetSectors() throws {
        let (fs, file) = try makeSynced([UInt8](repeating: 0xAA, count: 4096))
        try file.write([UInt8](repeating: 0xBB, count: 2000), at: 1000)  // 1000..<3000
        func image(_ fate: MemoryFileSystem.UnsyncedWriteFate) -> [UInt8] {
            fs.crashImage(.custom { path, index in
                XCTAssertEqual(path, "/db/file")
                XCTAssertEqual(index, 0)
                return fate
            }).contents(of: "/db/file")!
        }
        // The write touches five sectors: [512,1024), [1024,1536), … [2560,3072).
        var expected = [UInt8](repeating: 0xAA, count: 4096)
        for i in 1000..<1024 { expected[i] = 0xBB }
        assertBytes(image(.tear(keepingSectors: 1)), expected)
        for i in 1024..<1536 { expected[i] = 0xBB }
        assertBytes(image(.tear(keepingSectors: 2)), expected)
        for i in 1536..<2560 { expected[i] = 0xBB }
        assertBytes(image(.tear(keepingSectors: 4)), expected)
        for i in 2560..<3000 { expected[i] = 0xBB }
        assertBytes(image(.tear(keepingSectors: 5)), expected)
        assertBytes(image(.tear(keepingSectors: 9)), expected)
        assertBytes(image(.keep), expected)
        assertBytes(image(.drop), [UInt8](repeating: 0xAA, count: 4096))
        assertBytes(image(.tear(keepingSectors: 0)), [UInt8](repeating: 0xAA, count: 4096))
    }

    func testTornExtendingWriteAndWriteIndexes() throws {
        let (fs, file) = try makeSynced([UInt8](repeating: 1, count: 1000))
        try file.write([UInt8](repeating: 2, count: 2000), at: 1000)
        try file.write([3], at: 5000)
        let image = fs.crashImage(.custom { _, index in
            index == 0 ? .tear(keepingSectors: 1) : .keep
        })
        var expected = [UInt8](repeating: 1, count: 1000) + [UInt8](repeating: 2, count: 24)
        expected += [UInt8](repeating: 0, count: 5000 - 1024) + [3]
        assertBytes(image.contents(of: "/db/file") ?? [], expected)
        let onlyFirstTorn = fs.crashImage(.custom { _, index in
            index == 0 ? .tear(keepingSectors: 1) : .drop
        })
        XCTAssertEqual(onlyFirstTorn.contents(of: "/db/file")?.count, 1024)
    }

    func testCreatedFileWithoutDirectorySyncDisappears() throws {
        let fs = MemoryFileSystem()
        try fs.createDirectory("/db")
        let file = try fs.open("/db/new", mode: .createNew)
        try file.write([5, 6], at: 0)
        try file.sync()  // contents durable, name not
        XCTAssertNil(fs.crashImage(.dropAll).contents(of: "/db/new"))
        XCTAssertFalse(fs.crashImage(.dropAll).exists("/db/new"))
        XCTAssertTrue(fs.crashImage(.dropAll).exists("/db"))
        XCTAssertEqual(fs.crashImage(.keepAll).contents(of: "/db/new"), [5, 6])
        try fs.syncDirectory("/db")
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/new"), [5, 6])
    }

    func testRenameWithoutDirectorySyncReverts() throws {
        let (fs, old) = try makeSynced([1])
        try old.close()
        let temp = try fs.open("/db/file.tmp", mode: .createNew)
        try temp.write([2], at: 0)
        try temp.sync()
        try fs.syncDirectory("/db")
        try fs.rename("/db/file.tmp", to: "/db/file")
        XCTAssertEqual(fs.contents(of: "/db/file"), [2])
        XCTAssertNil(fs.contents(of: "/db/file.tmp"))
        let dropped = fs.crashImage(.dropAll)
        XCTAssertEqual(dropped.contents(of: "/db/file"), [1])
        XCTAssertEqual(dropped.contents(of: "/db/file.tmp"), [2])
        let kept = fs.crashImage(.keepAll)
        XCTAssertEqual(kept.contents(of: "/db/file"), [2])
        XCTAssertNil(kept.contents(of: "/db/file.tmp"))
        try fs.syncDirectory("/db")
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/file"), [2])
        XCTAssertEqual(try fs.crashImage(.dropAll).contentsOfDirectory("/db"), ["file"])
    }

    func testCrossDirectoryRenameCommitsWithEitherDirectory() throws {
        let fs = MemoryFileSystem()
        try fs.createDirectory("/a")
        try fs.createDirectory("/b")
        let file = try fs.open("/a/x", mode: .createNew)
        try file.write([1], at: 0)
        try file.sync()
        try fs.rename("/a/x", to: "/b/y")
        try fs.syncDirectory("/b")
        for policy in [MemoryFileSystem.CrashPolicy.keepAll, .dropAll] {
            let image = fs.crashImage(policy)
            XCTAssertEqual(image.contents(of: "/b/y"), [1])
            XCTAssertNil(image.contents(of: "/a/x"))
        }
    }

    func testKeepAllMatchesCurrentAndFullSyncMatchesDropAll() throws {
        var random = seededGenerator(42)
        for _ in 0..<30 {
            let fs = MemoryFileSystem()
            try fs.createDirectory("/d1")
            try fs.createDirectory("/d2")
            let names = ["/d1/a", "/d1/b", "/d2/a", "/d2/c"]
            for _ in 0..<40 {
                let name = names[Int(random.next() % 4)]
                let other = names[Int(random.next() % 4)]
                switch random.next() % 6 {
                case 0, 1:
                    let file = try fs.open(name, mode: .createOrOpen)
                    let offset = Int(random.next() % 1500)
                    try file.write([UInt8](repeating: UInt8(random.next() % 256), count: 700), at: offset)
                    if random.next() % 2 == 0 { try file.sync() }
                case 2:
                    if fs.exists(name) { try fs.open(name, mode: .readWrite).truncate(to: 300) }
                case 3: if fs.exists(name) { try fs.removeFile(name) }
                case 4: if fs.exists(name) { try fs.rename(name, to: other) }
                default: try fs.syncDirectory(random.next() % 2 == 0 ? "/d1" : "/d2")
                }
                let kept = fs.crashImage(.keepAll)
                for path in names {
                    XCTAssertTrue(kept.contents(of: path) == fs.contents(of: path), "\(path) differs")
                }
            }
            for path in names where fs.exists(path) { try fs.open(path, mode: .readWrite).sync() }
            try fs.syncDirectory("/d1")
            try fs.syncDirectory("/d2")
            let dropped = fs.crashImage(.dropAll)
            for path in names {
                XCTAssertTrue(dropped.contents(of: path) == fs.contents(of: path), "\(path) differs")
            }
        }
    }

    func testRemovalWithoutDirectorySyncComesBackWithDurableContents() throws {
        let (fs, file) = try makeSynced([1, 1])
        try file.write([2], at: 0)  // unsynced
        try fs.removeFile("/db/file")
        XCTAssertFalse(fs.exists("/db/file"))
        XCTAssertEqual(try file.readAll(), [2, 1])  // open handle still works
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/file"), [1, 1])
        XCTAssertNil(fs.crashImage(.keepAll).contents(of: "/db/file"))
        try fs.syncDirectory("/db")
        XCTAssertNil(fs.crashImage(.dropAll).contents(of: "/db/file"))
    }

    func testSyncedDataSurvivesEveryRandomCrash() throws {
        let (fs, file) = try makeSynced([UInt8](repeating: 7, count: 3000))
        try fs.createDirectory("/db/sub")
        let other = try fs.open("/db/sub/other", mode: .createNew)
        try other.write([1, 2, 3], at: 0)
        try file.write([UInt8](repeating: 8, count: 1500), at: 2500)
        try file.write([UInt8](repeating: 9, count: 10), at: 0)
        var outcomes = Set<[UInt8]>()
        for seed in UInt64(0)..<200 {
            let image = fs.crashImage(.random(seed: seed))
            let contents = try XCTUnwrap(image.contents(of: "/db/file"))
            XCTAssertGreaterThanOrEqual(contents.count, 3000, "seed \(seed)")
            XCTAssertTrue(contents[10..<2500].allSatisfy { $0 == 7 }, "seed \(seed)")
            XCTAssertTrue(contents[0..<10].allSatisfy { $0 == 7 } || contents[0..<10].allSatisfy { $0 == 9 }, "seed \(seed)")
            outcomes.insert(contents)
            // The same seed gives the same image.
            XCTAssertEqual(fs.crashImage(.random(seed: seed)).contents(of: "/db/file"), contents, "seed \(seed)")
            XCTAssertEqual(image.syncCount, 0, "seed \(seed)")
        }
        XCTAssertGreaterThan(outcomes.count, 3)
    }

    func testSyncHookNumbersSyncsAndCanFailThem() throws {
        let fs = MemoryFileSystem()
        try fs.createDirectory("/db")
        let events = Mutex<[MemoryFileSystem.SyncEvent]>([])
        let images = Mutex<[MemoryFileSystem]>([])
        struct Stop: Error {}
        fs.setSyncHook { event in
            events.withLock { $0.append(event) }
            if event.number == 2 { images.withLock { $0.append(fs.crashImage(.dropAll)) } }
            if event.number == 3 { throw Stop() }
        }
        let file = try fs.open("/db/f", mode: .createNew)
        try file.write([1], at: 0)
        try file.sync()  // 1
        try fs.syncDirectory("/db")  // 2: image taken before it takes effect
        try file.write([2], at: 1)
        XCTAssertThrowsError(try file.sync()) { XCTAssertTrue($0 is Stop) }  // 3 fails
        XCTAssertEqual(
            events.withLock { $0 },
            [.init(number: 1, path: "/db/f", isDirectory: false),
             .init(number: 2, path: "/db", isDirectory: true),
             .init(number: 3, path: "/db/f", isDirectory: false)])
        XCTAssertEqual(fs.syncCount, 3)
        XCTAssertNil(images.withLock { $0[0] }.contents(of: "/db/f"))
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/f"), [1])
        fs.setSyncHook(nil)
        try file.sync()
        XCTAssertEqual(fs.syncCount, 4)
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/f"), [1, 2])
    }

    func testFilesLocksAndHelpers() throws {
        let fs = MemoryFileSystem()
        assertStrataError(.notFound) { _ = try fs.open("/db/x", mode: .createNew) }
        try fs.createDirectory("/db/a/b")
        XCTAssertEqual(try fs.contentsOfDirectory("/db").sorted(), ["a"])
        fs.setContents([1, 2, 3], of: "/db/a/f")
        XCTAssertEqual(try fs.contentsOfDirectory("/db/a").sorted(), ["b", "f"])
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/a/f"), [1, 2, 3])
        fs.corrupt(path: "/db/a/f", at: 1, with: [0xFF])
        XCTAssertEqual(fs.crashImage(.dropAll).contents(of: "/db/a/f"), [1, 0xFF, 3])
        let file = try fs.open("/db/a/f", mode: .readOnly)
        XCTAssertEqual(try file.withBytes(at: 1, count: 2) { Array($0) }, [0xFF, 3])
        XCTAssertEqual(try file.withBytes(at: 3, count: 0) { $0.count }, 0)
        assertStrataError(.io) { _ = try file.withBytes(at: 2, count: 2) { _ in 0 } }
        assertStrataError(.io, errno: EBADF) { try file.write([1], at: 0) }
        assertStrataError(.io, errno: EEXIST) { _ = try fs.open("/db/a/f", mode: .createNew) }
        try file.close()
        try file.close()
        assertStrataError(.io, errno: EBADF) { _ = try file.size() }
        assertStrataError(.io, errno: EBADF) { try file.sync() }

        let lock = try fs.lock("/db/LOCK")
        assertStrataError(.locked) { _ = try fs.lock("/db/LOCK") }
        lock.unlock()
        lock.unlock()
        var again: (any FileLock)? = try fs.lock("/db/LOCK")
        XCTAssertNotNil(again)
        again = nil
        try fs.lock("/db/LOCK").unlock()
        XCTAssertTrue(fs.exists("/db/LOCK"))
    }

    func testConcurrentReadersWhileWriterAppends() throws {
        let fs = MemoryFileSystem()
        let file = try fs.open("log", mode: .createNew)
        let records = 2000
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            if worker == 0 {
                for i in 0..<records {
                    try! file.write([UInt8](repeating: UInt8(i % 251), count: 64), at: i * 64)
                    if i % 100 == 0 { try! file.sync() }
                }
            } else {
                var checked = 0
                while checked < records {
                    let available = try! file.size() / 64
                    for i in checked..<available {
                        let ok = try! file.withBytes(at: i * 64, count: 64) {
                            $0.allSatisfy { $0 == UInt8(i % 251) }
                        }
                        XCTAssertTrue(ok)
                    }
                    checked = available
                    _ = fs.crashImage(.random(seed: UInt64(worker)))
                }
            }
        }
        XCTAssertEqual(fs.contents(of: "log")?.count, records * 64)
    }
}

final class FaultInjectingFileSystemTests: XCTestCase {
    private func makeFile() throws -> (FaultInjectingFileSystem, MemoryFileSystem, any StorageFile) {
        let memory = MemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        try fs.createDirectory("/db")
        return (fs, memory, try fs.open("/db/wal", mode: .createNew))
    }

    func testPersistentENOSPCFromTheThirdWrite() throws {
        let (fs, memory, file) = try makeFile()
        fs.inject(.failWrite(errno: ENOSPC, skip: 2))
        try file.write([1], at: 0)
        try file.write([2], at: 1)
        let error = assertStrataError(.io, errno: ENOSPC) { try file.write([3], at: 2) }
        XCTAssertTrue(error?.message.contains("(injected)") ?? false)
        XCTAssertEqual(error?.file, "/db/wal")
        assertStrataError(.io, errno: ENOSPC) { try file.write([4], at: 3) }
        XCTAssertEqual(memory.contents(of: "/db/wal"), [1, 2])
        XCTAssertEqual(fs.writeCount, 4)
        fs.clearFaults()
        try file.write([5], at: 2)
        XCTAssertEqual(memory.contents(of: "/db/wal"), [1, 2, 5])
    }

    func testTransientFaultStops() throws {
        let (fs, memory, file) = try makeFile()
        fs.inject(.failWrite(errno: EIO, skip: 2, times: 1))
        try file.write([1], at: 0)
        try file.write([2], at: 1)
        assertStrataError(.io, errno: EIO) { try file.write([3], at: 2) }
        try file.write([4], at: 2)
        XCTAssertEqual(memory.contents(of: "/db/wal"), [1, 2, 4])
        XCTAssertEqual(fs.writeCount, 4)
    }

    func testFailedSyncHasNoEffect() throws {
        let (fs, memory, file) = try makeFile()
        try fs.syncDirectory("/db")
        fs.inject(.failSync(times: 1))
        try file.write([1, 2], at: 0)
        assertStrataError(.io, errno: EIO) { try file.sync() }
        XCTAssertEqual(memory.syncCount, 1)  // only the directory sync reached the base
        XCTAssertEqual(memory.crashImage(.dropAll).contents(of: "/db/wal"), [])
        try file.sync()
        XCTAssertEqual(memory.crashImage(.dropAll).contents(of: "/db/wal"), [1, 2])
        XCTAssertEqual(fs.syncCount, 3)
    }

    func testShortWriteKeepsExactlyThePrefix() throws {
        let (fs, memory, file) = try makeFile()
        try file.write([0xEE, 0xEE], at: 0)
        fs.inject(.shortWrite(keepingBytes: 4, errno: ENOSPC))
        assertStrataError(.io, errno: ENOSPC) { try file.write(Array(1...10), at: 2) }
        XCTAssertEqual(memory.contents(of: "/db/wal"), [0xEE, 0xEE, 1, 2, 3, 4])
        try file.write([9], at: 6)  // times: 1 by default
        XCTAssertEqual(memory.contents(of: "/db/wal"), [0xEE, 0xEE, 1, 2, 3, 4, 9])
    }

    func testPathFilterAndOtherOperations() throws {
        let (fs, memory, file) = try makeFile()
        fs.inject(.failWrite(pathContains: "MANIFEST"))
        fs.inject(.fail(.rename, errno: EXDEV, pathContains: "CURRENT"))
        fs.inject(.fail(.open, errno: EMFILE, pathContains: "busy", times: 1))
        fs.inject(.fail(.syncDirectory, skip: 1))
        fs.inject(.fail(.remove, errno: EACCES))
        try file.write([1], at: 0)
        let manifest = try fs.open("/db/MANIFEST-1", mode: .createNew)
        assertStrataError(.io, errno: EIO) { try manifest.write([1], at: 0) }
        assertStrataError(.io, errno: EXDEV) { try fs.rename("/db/MANIFEST-1", to: "/db/CURRENT") }
        XCTAssertTrue(memory.exists("/db/MANIFEST-1"))
        try fs.rename("/db/MANIFEST-1", to: "/db/MANIFEST-2")
        assertStrataError(.io, errno: EMFILE) { _ = try fs.open("/db/busy", mode: .createNew) }
        XCTAssertFalse(memory.exists("/db/busy"))
        _ = try fs.open("/db/busy", mode: .createNew)
        try fs.syncDirectory("/db")
        assertStrataError(.io, errno: EIO) { try fs.syncDirectory("/db") }
        assertStrataError(.io, errno: EACCES) { try fs.removeFile("/db/wal") }
        XCTAssertTrue(fs.exists("/db/wal"))
        XCTAssertEqual(try fs.contentsOfDirectory("/db").sorted(), ["MANIFEST-2", "busy", "wal"])
        XCTAssertEqual(fs.syncCount, 2)
    }
}
