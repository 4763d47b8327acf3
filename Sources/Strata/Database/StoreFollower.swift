import StrataStorage

/// Keeps a read-only store's change observers told of another process's commits: while the
/// store has at least one observer, a ``DirectoryWatcher`` watches its directory; on each change
/// it catches the store up (`Store.refresh()`) and, when that found commits, tells the
/// observers (`CommitNotifier.published(by:)`), as a commit in this process would.
///
/// Held by the `SharedStore` of a read-only store. The watcher starts when the first observer is
/// added and stops (its thread ended, its descriptors closed) when the last is removed or the
/// follower goes away.
///
/// Thread-safe: the watcher sits behind a lock; a refresh that fails is kept in ``lastFailure``
/// and tried again at the next change.
final class StoreFollower: Sendable {
    private let store: Store
    private let notifier: CommitNotifier
    private let watcher = Locked<DirectoryWatcher?>(nil)
    private let failure = Locked<StrataError?>(nil)

    init(store: Store, notifier: CommitNotifier) {
        self.store = store
        self.notifier = notifier
        notifier.whenObserversChange { [weak self] in self?.reconcile() }
    }

    deinit {
        watcher.withLock { $0 }?.stop()
    }

    /// Whether the watcher runs (for tests).
    var isWatching: Bool { watcher.withLock { $0 != nil } }

    /// Whether the running watcher uses inotify (false: it polls; nil: none runs). For tests.
    var watchesWithInotify: Bool? { watcher.withLock { $0?.usesInotify } }

    /// The last refresh's failure, nil after a refresh that succeeded.
    var lastFailure: StrataError? { failure.withLock { $0 } }

    /// Starts the watcher when the store has observers and none runs; stops it when it has
    /// none. Reads the observer count under the lock, so calls in any order end right.
    private func reconcile() {
        let stopped = watcher.withLock { watcher -> DirectoryWatcher? in
            let wanted = notifier.count > 0
            if wanted, watcher == nil {
                watcher = DirectoryWatcher(directory: store.directory, fileSystem: store.options.fileSystem) {
                    [weak self] in self?.catchUp()
                }
            } else if !wanted, let running = watcher {
                watcher = nil
                return running
            }
            return nil
        }
        stopped?.stop()
    }

    /// Refreshes the store; tells the observers when it found commits.
    func catchUp() {
        do {
            let found = try store.refresh()
            failure.withLock { $0 = nil }
            if found { notifier.published(by: nil) }
        } catch {
            failure.withLock { $0 = (error as? StrataError) ?? StrataError(.io, "\(error)") }
        }
    }
}
