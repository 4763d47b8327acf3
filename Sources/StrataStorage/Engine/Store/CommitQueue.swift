import DequeModule

// Group commit (LevelDB's writer queue): committers line up; the one at the front becomes the
// leader, takes every batch queued behind it, writes them all, syncs once, and wakes the others
// with their results. A committer that arrives while a leader syncs waits and is carried in the
// next group.
//
// Thread-safe: all queue state is guarded by `lock`.

final class CommitQueue: @unchecked Sendable {
    final class Ticket {
        let batch: WriteBatch
        let durability: Durability
        var result: Result<UInt64, StrataError>?
        init(batch: WriteBatch, durability: Durability) {
            self.batch = batch
            self.durability = durability
        }
    }

    private let lock = ConditionLock()
    private var queue = Deque<Ticket>()
    /// The most bytes one group gathers before it is written.
    private let groupByteLimit = 4 << 20

    /// Whether a commit is queued or being written (the background compactor yields then).
    var isBusy: Bool { lock.withLock { !queue.isEmpty } }

    /// Queues `batch` and returns its result; runs `lead` when this committer becomes the
    /// leader. `lead` gets the group (this committer's ticket first) and must set every
    /// ticket's result.
    func submit(
        _ batch: WriteBatch, durability: Durability, lead: ([Ticket]) -> Void
    ) throws(StrataError) -> UInt64 {
        let ticket = Ticket(batch: batch, durability: durability)
        lock.lock()
        queue.append(ticket)
        while ticket.result == nil && queue.first !== ticket { lock.wait() }
        if let result = ticket.result {
            lock.unlock()
            return try result.get()
        }
        var group = [ticket]
        var bytes = batch.encodedSizeBound
        for next in queue.dropFirst() {
            bytes += next.batch.encodedSizeBound
            if bytes > groupByteLimit { break }
            group.append(next)
        }
        lock.unlock()

        lead(group)

        lock.lock()
        queue.removeFirst(group.count)
        lock.broadcast()
        lock.unlock()
        return try ticket.result!.get()
    }
}
