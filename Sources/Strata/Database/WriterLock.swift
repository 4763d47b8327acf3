import Foundation
import StrataStorage

/// The one-writer lock of a store: a binary semaphore (one thread or task takes it, another may
/// release it: `beginWrite` and `commitWrite` may run on different threads), which threads wait
/// for by blocking and tasks by suspending.
///
/// A release does not hand the lock to a waiter; it frees it and wakes one waiting task and
/// every waiting thread, and whoever runs first takes it (a task that loses goes back to the
/// front of the queue). Handing it over would deadlock an actor: a task granted the lock but
/// not yet running on its actor would hold it while a synchronous `write` on that same actor
/// blocks the actor's thread waiting for it.
///
/// The lock knows its holder (`WriterIdentity`: the task, or the thread outside a task, that took
/// it), so that a holder asking for it again — a write begun inside a write of another
/// `Database` of the same store, on the same thread or task — is refused with an error instead
/// of waiting for itself forever. Any thread may release it.
///
/// Thread-safe: every field is read and changed under `condition`'s mutex (a pthread mutex, so
/// the thread sanitizer sees it).
final class WriterLock: @unchecked Sendable {
    private let condition = NSCondition()
    /// The store's directory, named by the error of a holder that asks again.
    private let directory: String
    private var isHeld = false
    /// Who took the lock; nil while it is free.
    private var holder: WriterIdentity?
    /// Threads blocked in `acquire(for:)`.
    private var waitingThreads = 0
    /// Tasks suspended in `acquireSuspending(for:isolation:)`, first to wake first.
    private var waitingTasks: [WaitingTask] = []
    private var nextTaskID: UInt64 = 0

    private struct WaitingTask {
        let id: UInt64
        /// The task that waits: the lock's holder once it takes it.
        let caller: WriterIdentity
        /// Resumed with false when a release woke it (it then tries again).
        let continuation: CheckedContinuation<Bool, any Error>
    }

    /// A free lock for the store in `directory`.
    init(directory: String) {
        self.directory = directory
    }

    /// Takes the lock, blocking the calling thread while another writer holds it.
    /// - Parameter purpose: what takes it ("a write", say), named by the error.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` when the calling task (or thread,
    ///   outside a task) holds it already: the wait would never end.
    func acquire(for purpose: String) throws {
        let caller = WriterIdentity.current
        condition.lock()
        defer { condition.unlock() }
        try checkNotHeld(by: caller, for: purpose)
        while isHeld {
            waitingThreads += 1
            condition.wait()
            waitingThreads -= 1
        }
        isHeld = true
        holder = caller
    }

    /// How many threads are blocked in `acquire(for:)`.
    var waitingThreadCount: Int { condition.withLock { waitingThreads } }

    /// Throws when `caller` holds the lock. REQUIRES: the mutex is held.
    private func checkNotHeld(by caller: WriterIdentity, for purpose: String) throws {
        guard isHeld, holder == caller else { return }
        throw StrataError(
            .notInWriteTransaction,
            "\(purpose) cannot begin while this thread (or task) has a write open on another Database of the same files: it would wait for that write forever; end the write first (commit or cancel it)",
            file: directory)
    }

    /// Takes the lock, suspending the calling task (no thread waits) while another writer
    /// holds it. The lock is taken on the caller's isolation (`isolation`): a task whose actor is
    /// busy — say, blocked in a synchronous `write` waiting for this lock — cannot take it from
    /// elsewhere and then wait for that actor while holding it.
    /// - Parameter purpose: what takes it, named by the error.
    /// - Throws: `CancellationError` when the task is cancelled before it has the lock (it then
    ///   does not have it); ``/StrataStorage/StrataError`` `.notInWriteTransaction` when the calling task holds
    ///   it already.
    func acquireSuspending(for purpose: String, isolation: isolated (any Actor)? = #isolation) async throws {
        let caller = WriterIdentity.current
        let id = try condition.withLock {
            try checkNotHeld(by: caller, for: purpose)
            nextTaskID += 1
            return nextTaskID
        }
        var woken = false
        while true {
            let acquired = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    enqueueOrTake(WaitingTask(id: id, caller: caller, continuation: continuation), wasWoken: woken)
                }
            } onCancel: {
                cancelWaiting(id)
            }
            if acquired { return }
            woken = true
        }
    }

    /// Takes the lock for `task` when it is free (resuming it with true), else queues it (at the
    /// front when a release woke it and it lost the lock to another). A task already cancelled
    /// is resumed with `CancellationError` instead. The check and the queueing happen under the
    /// mutex, so a release or a cancellation in between cannot be missed.
    private func enqueueOrTake(_ task: WaitingTask, wasWoken: Bool) {
        condition.lock()
        if Task.isCancelled {
            // A woken task that gives up passes the wake-up on, so no waiter sleeps while the
            // lock is free.
            let next = wasWoken ? takeWokenTask() : nil
            condition.unlock()
            task.continuation.resume(throwing: CancellationError())
            next?.continuation.resume(returning: false)
        } else if !isHeld {
            isHeld = true
            holder = task.caller
            condition.unlock()
            task.continuation.resume(returning: true)
        } else {
            waitingTasks.insert(task, at: wasWoken ? 0 : waitingTasks.count)
            condition.unlock()
        }
    }

    /// Stops the wait of the task `id`, if it is still queued, with `CancellationError`.
    private func cancelWaiting(_ id: UInt64) {
        condition.lock()
        guard let position = waitingTasks.firstIndex(where: { $0.id == id }) else {
            condition.unlock()
            return
        }
        let task = waitingTasks.remove(at: position)
        condition.unlock()
        task.continuation.resume(throwing: CancellationError())
    }

    /// Frees the lock and wakes the first waiting task and every waiting thread.
    func release() {
        condition.lock()
        isHeld = false
        holder = nil
        let woken = takeWokenTask()
        if waitingThreads > 0 { condition.broadcast() }
        condition.unlock()
        woken?.continuation.resume(returning: false)
    }

    /// The first waiting task, out of the queue, when the lock is free. REQUIRES: the mutex is
    /// held; the caller resumes the task after unlocking.
    private func takeWokenTask() -> WaitingTask? {
        guard !isHeld, !waitingTasks.isEmpty else { return nil }
        return waitingTasks.removeFirst()
    }
}
