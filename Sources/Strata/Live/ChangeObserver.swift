import Dispatch
import StrataStorage

/// Does one observer's work on its delivery queue: compares what it observes now with what it
/// delivered last and calls the observer's block with the difference. Made on the delivery
/// queue and used only there (so it may hold a `Database` confined to that queue).
protocol ObservationWorker: AnyObject {
    /// Computes and delivers the change since the last delivery (the first call: the initial
    /// state). Returns false when the observation is over (its object was deleted, or it failed).
    func deliver(isCancelled: () -> Bool) -> Bool
}

/// One registered observer (a `Results`' or an object's): coalesces the commits it is told of
/// into deliveries on a serial queue.
///
/// Buffering: at most one delivery is queued per observer. A commit while one is queued adds
/// nothing; the delivery reads the newest version when it runs, so a burst of commits becomes one
/// delivery that covers them all, and memory does not grow with a slow consumer: the observer
/// holds only what it delivered last.
///
/// Thread-safe: its state sits behind a lock. The worker is made, used and released only on
/// `queue` (a serial queue); the lock only hands it over.
final class ChangeObserver: CommitObserver {
    /// The queue Strata delivers on when the caller names none: serial, so callbacks without
    /// `on:` come in commit order across observers.
    static let defaultQueue = DispatchQueue(label: "strata.notifications")

    /// The queue deliveries run on: serial, targeting the queue the caller named (so a
    /// concurrent queue still gets one delivery of an observer at a time).
    let queue: DispatchQueue
    private let notifier: CommitNotifier
    /// The open store the observation reads, kept open while the observer is registered: its
    /// worker opens its own `Database` of the same files, which must find this store (and its
    /// notifier) rather than open another.
    private let store: SharedStore?
    private let state: Locked<State>

    private struct State {
        var isScheduled = false
        var isInvalidated = false
        /// Makes the worker on the delivery queue at the first delivery.
        var makeWorker: (() -> any ObservationWorker)?
        var worker: (any ObservationWorker)?
    }

    /// Registers an observer of `store`'s commits (nil: of nothing, for an observation that
    /// cannot start) whose worker `makeWorker` makes on `queue`, and queues its first delivery.
    init(store: SharedStore?, queue: DispatchQueue?, makeWorker: @escaping () -> any ObservationWorker) {
        self.queue = queue.map { DispatchQueue(label: "strata.observer", target: $0) } ?? Self.defaultQueue
        self.store = store
        self.notifier = store?.notifier ?? CommitNotifier()
        self.state = Locked(State(makeWorker: makeWorker))
        notifier.add(self)
        schedule()
    }

    var isInvalidated: Bool { state.withLock { $0.isInvalidated } }

    /// Queues a delivery unless one is queued already or the observer is invalidated.
    func schedule() {
        let queueIt = state.withLock { state in
            guard !state.isScheduled, !state.isInvalidated else { return false }
            state.isScheduled = true
            return true
        }
        if queueIt { queue.async { self.run() } }
    }

    /// One delivery, on `queue`.
    private func run() {
        let (existing, make): ((any ObservationWorker)?, (() -> any ObservationWorker)?) = state.withLock { state in
            state.isScheduled = false
            guard !state.isInvalidated else { return (nil, nil) }
            return (state.worker, state.worker == nil ? state.makeWorker.take() : nil)
        }
        guard let worker = existing ?? make?() else { return }
        if existing == nil {
            // Kept unless the observer was invalidated meanwhile (then it goes here, on the queue).
            let kept = state.withLock { state in
                guard !state.isInvalidated else { return false }
                state.worker = worker
                return true
            }
            guard kept else { return }
        }
        let goesOn = worker.deliver(isCancelled: { self.isInvalidated })
        if !goesOn { invalidate() }
    }

    /// Stops deliveries: none starts after this returns (one running on the queue may finish).
    func invalidate() {
        let first = state.withLock { state in
            defer { state.isInvalidated = true }
            return !state.isInvalidated
        }
        guard first else { return }
        notifier.remove(self)
        // The worker (and the database it reads) goes on the queue it was used on.
        queue.async { self.release() }
    }

    private func release() {
        let (worker, make) = state.withLock { state in (state.worker.take(), state.makeWorker.take()) }
        _ = (worker, make)
    }
}
