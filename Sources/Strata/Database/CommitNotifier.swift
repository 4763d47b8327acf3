import StrataStorage

/// What ``CommitNotifier`` tells of each published commit: a change observer (`ChangeObserver`
/// in Live/), which computes and delivers what changed on its own queue.
protocol CommitObserver: AnyObject, Sendable {
    /// Marks the observer as due after a commit and queues one delivery when it was not due
    /// already; returns without waiting for it. Called on the committing thread.
    func schedule()
}

/// Tells the change observers of one store (every `Database` of the same files in this
/// process) that a commit was published. Held by `SharedStore`.
///
/// The writer calls ``published(by:)`` after its commit is in the store and its writer lock is
/// given up; that only marks each observer as due and, for an observer not already due, queues
/// one delivery on its queue — the writer never waits for an observer's work or its callback.
///
/// Thread-safe: the observer table sits behind a lock. It holds its observers strongly until
/// they are removed (a token's `invalidate()` or release removes its observer).
final class CommitNotifier: Sendable {
    private let observers = Locked<[ObjectIdentifier: any CommitObserver]>([:])
    /// Called (outside the lock) after each add and remove: a read-only store's follower
    /// watches the files only while there are observers (`StoreFollower`).
    private let observersChanged = Locked<(@Sendable () -> Void)?>(nil)
    /// Called on the committing thread at each commit, with the `Database` that made it (nil for
    /// a commit of the writing process a read-only store follows): each live database's
    /// `DatabaseEvents`.
    private let listeners = Locked<[ObjectIdentifier: @Sendable (ObjectIdentifier?) -> Void]>([:])

    func add(_ observer: any CommitObserver) {
        observers.withLock { $0[ObjectIdentifier(observer)] = observer }
        observersChanged.withLock { $0 }?()
    }

    func remove(_ observer: any CommitObserver) {
        _ = observers.withLock { $0.removeValue(forKey: ObjectIdentifier(observer)) }
        observersChanged.withLock { $0 }?()
    }

    /// Sets what is called after each ``add(_:)`` and ``remove(_:)``.
    func whenObserversChange(_ body: @escaping @Sendable () -> Void) {
        observersChanged.withLock { $0 = body }
    }

    func addListener(_ id: ObjectIdentifier, _ body: @escaping @Sendable (ObjectIdentifier?) -> Void) {
        listeners.withLock { $0[id] = body }
    }

    func removeListener(_ id: ObjectIdentifier) { _ = listeners.withLock { $0.removeValue(forKey: id) } }

    /// A commit was published by the database `origin` (nil: by the process a read-only store
    /// follows): each listener hears of it now, and each observer computes and delivers what
    /// changed, later, on its queue.
    func published(by origin: ObjectIdentifier?) {
        let listening = listeners.withLock { Array($0.values) }
        for listener in listening { listener(origin) }
        let due = observers.withLock { Array($0.values) }
        for observer in due { observer.schedule() }
    }

    /// How many observers are registered (for tests).
    var count: Int { observers.withLock { $0.count } }
}
