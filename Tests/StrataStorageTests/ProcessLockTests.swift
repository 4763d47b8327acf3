import Foundation
import XCTest
@testable import StrataStorage

/// The LOCK file against a real second process (util-linux `flock`, which takes the same
/// `flock(2)` lock the store takes).
final class ProcessLockTests: XCTestCase {
    var directory: String!

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs util-linux flock")
        directory = NSTemporaryDirectory() + "strata-lock-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func testSecondProcessOpeningForWritingIsRefused() throws {
        // Our store holds the database; another process cannot take the lock.
        let store = try Store(directory: directory)
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        other.arguments = ["-n", directory + "/LOCK", "true"]
        try other.run()
        other.waitUntilExit()
        XCTAssertEqual(other.terminationStatus, 1, "another process took the lock the store holds")
        try store.close()
    }

    func testOpeningWhileAnotherProcessHoldsTheLockFailsAtOnce() throws {
        try PosixFileSystem().createDirectory(directory)
        // The holder prints once it has the lock, then keeps it for a few seconds.
        let holder = Process()
        let output = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-n", "-o", directory + "/LOCK", "/bin/sh", "-c", "echo locked; exec sleep 3"]
        holder.standardOutput = output
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        XCTAssertEqual(line, "locked\n", "the holder did not take the lock (status \(holder.isRunning ? "running" : "\(holder.terminationStatus)"))")
        let started = Date()
        XCTAssertThrowsError(try Store(directory: directory)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .locked)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "the open waited for the lock")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/MANIFEST"), "a refused open wrote something")
    }

    func testRealFileSystemRoundTrip() throws {
        var options = Store.Options()
        options.segmentSize = 8192
        let store = try Store(directory: directory, options: options)
        var model: Contents = [:]
        for batch in makeWorkload(commits: 100, seed: 5) {
            try store.commit(batch)
            apply(batch, to: &model)
        }
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        let reopened = try Store(directory: directory, options: options)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        XCTAssertGreaterThan(reopened.statistics().segments, 3)
    }
}
