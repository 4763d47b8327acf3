import StrataStorage

/// Tells the change observers of one store (every `Database` of the same files in this
/// process) that a commit was published. Held by `SharedStore`.
///
/// The writer calls ``published()`` after its commit is in the store and its writer lock is
/// given up; that only marks each observer as due and, for an observer not already due, queues
/// one delivery on its queue — the writer never waits for an observer's work or its callback.
///
/// Thread-safe: the observer table sits behind a lock. It holds its observers strongly until
/// they are removed (a token's `invalidate()` or release removes its observer).
final class CommitNotifier: Sendable {
    private let observers = Locked<[ObjectIdentifier: ChangeObserver]>([:])
    /// Called (outside the lock) after each add and remove: a read-only store's follower
    /// watches the files only while there are observers (`StoreFollower`).
    private let observersChanged = Locked<(@Sendable () -> Void)?>(nil)

    func add(_ observer: ChangeObserver) {
        observers.withLock { $0[ObjectIdentifier(observer)] = observer }
        observersChanged.withLock { $0 }?()
    }

    func remove(_ observer: ChangeObserver) {
        _ = observers.withLock { $0.removeValue(forKey: ObjectIdentifier(observer)) }
        observersChanged.withLock { $0 }?()
    }

    /// Sets what is called after each ``add(_:)`` and ``remove(_:)``.
    func whenObserversChange(_ body: @escaping @Sendable () -> Void) {
        observersChanged.withLock { $0 = body }
    }

    /// A commit was published: each observer computes and delivers what changed, later, on its
    /// queue.
    func published() {
        let due = observers.withLock { Array($0.values) }
        for observer in due { observer.schedule() }
    }

    /// How many observers are registered (for tests).
    var count: Int { observers.withLock { $0.count } }
}
