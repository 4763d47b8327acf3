import StrataStorage

/// The hand-off between an observer's delivery queue and the task iterating a
/// ``ChangeSequence``: it holds at most one delivered change that the task has not taken yet.
///
/// Buffering: while a change waits to be taken, the observer puts its next delivery off
/// (`putOff()`); taking the change queues the delivery that was put off, which then covers
/// every commit since the change taken. So a slow consumer holds at most one change and the
/// observer's last state, however many commits come, and each change is against the one before
/// it, as with a callback.
///
/// Thread-safe: its state sits behind a lock. The changes it carries hold only frozen values
/// (see `ChangeSequence`), which any thread may read.
final class ChangeMailbox<Change>: @unchecked Sendable {
    private struct State {
        var pending: Change?
        /// A delivery was put off while `pending` waited.
        var isDue = false
        /// No change comes after `pending`: the observation ended or its task was cancelled.
        var isFinished = false
        var waiter: CheckedContinuation<ChangeHandoff<Change>?, Never>?
    }

    private let state = Locked(State())
    /// The observer feeding this mailbox; set once, right after it is made.
    private let observer = Locked<ChangeObserver?>(nil)

    func attach(_ observer: ChangeObserver) { self.observer.withLock { $0 = observer } }

    /// Puts a delivery off when a change is waiting to be taken; true when it did.
    func putOff() -> Bool {
        state.withLock { state in
            guard state.pending != nil else { return false }
            state.isDue = true
            return true
        }
    }

    /// A delivery from the observer's queue: to the waiting task, or kept until one asks.
    func put(_ change: Change) {
        let waiter: CheckedContinuation<ChangeHandoff<Change>?, Never>? = state.withLock { state in
            guard !state.isFinished else { return nil }
            guard let waiter = state.waiter.take() else {
                state.pending = change
                return nil
            }
            return waiter
        }
        waiter?.resume(returning: ChangeHandoff(change: change))
    }

    /// No delivery follows (the observation ended): a waiting task gets nil after what is
    /// pending.
    func finish() {
        let waiter = state.withLock { state in
            state.isFinished = true
            return state.pending == nil ? state.waiter.take() : nil
        }
        waiter?.resume(returning: nil)
    }

    /// The next change, waiting for it; nil once the observation ended or the task was
    /// cancelled.
    func take() async -> ChangeHandoff<Change>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChangeHandoff<Change>?, Never>) in
                let (ready, resume) = state.withLock { state -> (ChangeHandoff<Change>??, Bool) in
                    if let pending = state.pending.take() {
                        defer { state.isDue = false }
                        return (.some(ChangeHandoff(change: pending)), state.isDue)
                    }
                    if state.isFinished || Task.isCancelled { return (.some(nil), false) }
                    state.waiter = continuation
                    return (nil, false)
                }
                if let ready { continuation.resume(returning: ready) }
                if resume { observer.withLock { $0 }?.schedule() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the observation from the consumer's side: its task was cancelled, or the sequence
    /// and its iterators were released.
    func cancel() {
        let waiter = state.withLock { state in
            state.isFinished = true
            state.pending = nil
            return state.waiter.take()
        }
        waiter?.resume(returning: nil)
        observer.withLock { $0.take() }?.invalidate()
    }
}

/// The worker of an observation a ``ChangeSequence`` iterates: the observation's own worker,
/// whose deliveries are put off while the consumer has not taken the previous one.
final class MailboxWorker<Change>: ObservationWorker {
    private let inner: any ObservationWorker
    private let mailbox: ChangeMailbox<Change>

    init(inner: any ObservationWorker, mailbox: ChangeMailbox<Change>) {
        self.inner = inner
        self.mailbox = mailbox
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        guard !mailbox.putOff() else { return true }
        let goesOn = inner.deliver(isCancelled: isCancelled)
        if !goesOn { mailbox.finish() }
        return goesOn
    }
}
