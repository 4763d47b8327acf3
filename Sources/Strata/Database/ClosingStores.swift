import Foundation

/// The registry names of shared stores whose last `Database` is gone and whose store is being
/// closed. Until the close returns, the store still holds the directory's lock, so an open of
/// the same files in this process waits for it here rather than failing with `.locked`.
///
/// Thread-safe: a condition variable guards the names.
final class ClosingStores: @unchecked Sendable {
    private let condition = NSCondition()
    private var closing: [String: Int] = [:]

    /// Notes that the store registered as `name` is being closed.
    func begin(_ name: String) {
        condition.lock()
        closing[name, default: 0] += 1
        condition.unlock()
    }

    /// Notes that a close of the store registered as `name` returned, and wakes the waiters.
    func end(_ name: String) {
        condition.lock()
        if let count = closing[name], count > 1 {
            closing[name] = count - 1
        } else {
            closing[name] = nil
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once no store registered as `name` is being closed.
    /// - Complexity: waits for at most the closes under way (each syncs a segment file).
    func waitUntilClosed(_ name: String) {
        condition.lock()
        while closing[name] != nil { condition.wait() }
        condition.unlock()
    }
}
