import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// An open of a directory whose last `Database` another thread is just releasing waits for that
/// store's close (its directory lock) instead of failing with `.locked` (ClosingStores).
final class ReopenWhileClosingTests: DatabaseTestCase {
    /// A database handed to the thread that releases it (used by one thread at a time).
    private final class Handoff: @unchecked Sendable {
        var database: Database?
    }

    func testOpeningWhileAnotherThreadReleasesTheLastDatabaseNeverFindsTheDirectoryLocked() throws {
        var configuration = try open().configuration
        configuration.durability = .none  // so that each close has a commit to sync
        var failures: [String] = []
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let handoff = Handoff()
            handoff.database = try Database(configuration: configuration)
            try handoff.database!.write { try handoff.database!.add(Counter()) }  // something for the close to sync
            let released = DispatchSemaphore(value: 0)
            Thread {
                handoff.database = nil
                released.signal()
            }.start()
            usleep(UInt32.random(in: 0...400, using: &random))  // into the close, now and then
            do {
                _ = try Database(configuration: configuration)
            } catch {
                failures.append("\(error)")
            }
            released.wait()
        }
        XCTAssertEqual(failures, [])
    }
}
