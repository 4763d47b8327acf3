#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The background compactor of one open writable store (docs/design-storage.md, "Background
// compaction"): a dedicated thread that sleeps until asked (`request()`: after each segment
// seal), asks its store whether the policy wants a compaction, and runs it with hooks that
// publish progress (to the polled status and to the update streams), yield while commits
// queue, and stop the run when asked to.
//
// A thread, not a Task: compaction is blocking file I/O under the engine's pthread locks
// (docs/design-storage.md, "Locks"), which must not occupy the cooperative pool's few threads.
//
// The thread owns the compactor's view of its store (`Store.init(sharingStateOf:)`: the same
// state, without the directory lock or the compactor), never the `Store` its opener holds.
// So dropping the last reference to that one runs its `deinit` at once, on the dropping thread,
// even during a run: `deinit` stops the compactor and joins it (waiting for at most one batch of
// a copy, or the rest of an install) and only then releases `LOCK`. The run uses only the view,
// which the thread holds until it ends, so nothing it uses is freed under it.
//
// Thread-safe: every field is guarded by `lock`, which is a leaf (never held while taking
// another lock, nor while compacting). Statuses are yielded to the update streams under it,
// so each stream sees them in order; the streams are finished outside it.

final class BackgroundCompactor: @unchecked Sendable {
    private let lock = ConditionLock()
    private var thread: pthread_t?
    /// A run was asked for and has not started.
    private var pending = false
    /// The thread is evaluating or running a compaction.
    private var busy = false
    private var stopping = false
    /// The thread has left its loop.
    private var exited = false
    /// Someone is joining the thread (or it was detached).
    private var reaped = false
    private var status = BackgroundCompactionStatus()
    /// `status.bytesDone` when progress was last sent to the update streams.
    private var bytesSent = 0
    private var subscribers = BackgroundCompactionSubscribers()

    /// The longest a pacer call waits for queued commits before copying the next slice.
    static let longestYield: Duration = .milliseconds(20)

    /// Starts the thread for `view`, the compactor's view of a store (see the top of the file),
    /// which the thread holds until it ends; it waits for the first `request()`. (No run at
    /// open: the open-time decision is the object layer's `shouldCompactOnLaunch`.)
    /// - Throws: ``StrataError`` `.io` when the thread cannot be created.
    func start(for view: Store) throws {
        let thread: pthread_t
        do {
            // The thread holds the compactor and the view until its loop returns.
            thread = try NativeThread.start(for: "the background compactor", detached: false) { [self] in loop(view) }
        } catch {
            lock.withLock { exited = true }
            throw error
        }
        lock.withLock { self.thread = thread }
    }

    /// Asks for a run (coalesced with one already asked for). Never blocks on a compaction.
    func request() {
        lock.withLock {
            guard !stopping else { return }
            pending = true
            lock.broadcast()
        }
    }

    /// Stops the thread: a running compaction stops at its next batch (leaving the store as it
    /// was) or, past its copy, finishes its install; then the thread ends. Returns once it has
    /// ended, except when called on the compactor's own thread (a failure handler that closes
    /// the store): the thread is then detached and ends as this call's caller returns.
    func stop() {
        lock.lock()
        stopping = true
        lock.broadcast()
        let streams = subscribers.takeAll()
        lock.unlock()
        // Outside the lock: finishing runs each stream's `onTermination`, which takes it.
        for stream in streams { stream.finish() }
        lock.lock()
        guard let thread else {
            lock.unlock()
            return
        }
        if pthread_equal(thread, pthread_self()) != 0 {
            if !reaped { reaped = true; pthread_detach(thread) }
            lock.unlock()
            return
        }
        if reaped {
            while !exited { lock.wait() }
            lock.unlock()
            return
        }
        reaped = true
        lock.unlock()
        pthread_join(thread, nil)
    }

    /// What the compactor is doing and has done.
    var currentStatus: BackgroundCompactionStatus { lock.withLock { status } }

    /// A stream of statuses: the current one, then one each time a run starts, advances (by
    /// at least 1 % of its total), finishes or fails; it ends when the compactor stops (at
    /// once when it has stopped already).
    func updates() -> AsyncStream<BackgroundCompactionStatus> {
        let (stream, stopped) = lock.withLock { () -> (AsyncStream<BackgroundCompactionStatus>, Bool) in
            let stream = subscribers.add(current: status) { [weak self] id in
                guard let self else { return }
                self.lock.withLock { self.subscribers.remove(id) }
            }
            return (stream, stopping)
        }
        if stopped {
            // Not under the lock (see `stop()`); `stop()` took the others already.
            for continuation in lock.withLock({ subscribers.takeAll() }) { continuation.finish() }
        }
        return stream
    }

    /// The update streams registered (for tests).
    var subscriberCount: Int { lock.withLock { subscribers.count } }

    /// Waits until no run is asked for or under way (or the compactor stopped).
    func waitUntilIdle() {
        lock.withLock { while (pending || busy) && !exited { lock.wait() } }
    }

    /// The name of the compactor's thread (in /proc/self/task/*/comm).
    static let threadName = "strata.compact"

    private func loop(_ view: Store) {
        nameCurrentThread(Self.threadName)
        while runOnce(view) {
            lock.withLock {
                busy = false
                lock.broadcast()
            }
        }
        lock.withLock {
            exited = true
            lock.broadcast()
        }
    }

    /// Waits for a request and runs it on `view`; false when stopping.
    private func runOnce(_ view: Store) -> Bool {
        guard nextRun() else { return false }
        view.runBackgroundCompaction(self)
        return true
    }

    /// Waits for a request; returns whether to run (false when stopping).
    private func nextRun() -> Bool {
        lock.withLock {
            while !pending && !stopping { lock.wait() }
            guard !stopping else { return false }
            pending = false
            busy = true
            return true
        }
    }

    // MARK: Called by the run (Store+BackgroundCompaction.swift), on the compactor's thread.

    func began(copying total: Int) {
        lock.withLock {
            status.isRunning = true
            status.bytesDone = 0
            status.bytesTotal = total
            bytesSent = 0
            subscribers.yield(status)
        }
    }

    /// The pacer: records progress; throws when stopping; while commits come (one queued or
    /// being written, or `sequence()` moved during the last 200 µs sleep), waits in such
    /// sleeps for at most `longestYield`.
    func pace(bytesCopied: Int, commitsWaiting: () -> Bool, sequence: () -> UInt64) throws {
        try progress(bytesCopied: bytesCopied)
        let clock = ContinuousClock()
        let deadline = clock.now + Self.longestYield
        var last = sequence()
        while clock.now < deadline {
            let busy = commitsWaiting()
            usleep(200)
            let now = sequence()
            guard busy || now != last else { break }
            last = now
            try progress(bytesCopied: bytesCopied)
        }
    }

    /// The batch hook: records progress, sends it to the update streams when it advanced by
    /// 1 % of the total since last sent, and throws when stopping.
    func progress(bytesCopied: Int) throws {
        let stop = lock.withLock {
            let done = min(bytesCopied, status.bytesTotal)
            if done > status.bytesDone {
                status.bytesDone = done
                if done - bytesSent >= max(1, status.bytesTotal / 100) {
                    bytesSent = done
                    subscribers.yield(status)
                }
            }
            return stopping
        }
        if stop { throw StrataError(.closed, "the background compaction was stopped: the store is closing") }
    }

    func finished(_ report: CompactionReport) {
        lock.withLock {
            status.isRunning = false
            status.bytesDone = status.bytesTotal
            status.completedRuns += 1
            status.lastReport = report
            subscribers.yield(status)
        }
    }

    /// Records a failed run; returns whether to report it (not when the run was stopped).
    func failed(_ error: StrataError) -> Bool {
        lock.withLock {
            status.isRunning = false
            defer { subscribers.yield(status) }
            guard !stopping else { return false }
            status.failedRuns += 1
            status.lastFailure = error
            return true
        }
    }
}
