import Dispatch
import StrataStorage
import XCTest

/// What change-notification callbacks recorded on their delivery queue, for a test thread to
/// wait for and check: each callback appends a `Sendable` summary and signals.
final class DeliveryLog<Entry: Sendable>: Sendable {
    private let entries = Locked<[Entry]>([])
    private let signal = DispatchSemaphore(value: 0)

    func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
        signal.signal()
    }

    var all: [Entry] { entries.withLock { $0 } }

    /// Waits (up to `timeout` seconds in all) until `done` holds for the entries; fails the
    /// test if it does not.
    func wait(timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line, until done: ([Entry]) -> Bool) {
        let deadline = DispatchTime.now() + timeout
        while !done(all) {
            if signal.wait(timeout: deadline) == .timedOut {
                XCTFail("timed out waiting for deliveries; got \(all.count)", file: file, line: line)
                return
            }
        }
    }
}
