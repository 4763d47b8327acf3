/// Keeps a change observation going: deliveries stop when you call ``invalidate()`` or when the
/// token is released, as Realm's `NotificationToken`.
///
/// ```swift
/// let token = db.objects(Dog.self).observe { change in print(change) }
/// // …
/// token.invalidate()
/// ```
///
/// While the token is alive its observer keeps the database's files open (it reads them on its
/// delivery queue).
///
/// Thread safety: `Sendable`; ``invalidate()`` may be called from any thread. Called on the
/// delivery queue, no callback comes after it; called elsewhere, a callback already running
/// on the queue may finish.
public final class NotificationToken: Sendable {
    let observer: ChangeObserver?
    /// What else stops the deliveries (an actor's delivery task).
    private let cancel: (@Sendable () -> Void)?

    init(observer: ChangeObserver?, cancel: (@Sendable () -> Void)? = nil) {
        self.observer = observer
        self.cancel = cancel
    }

    /// Stops the deliveries. Calling it again does nothing.
    /// - Complexity: O(1).
    public func invalidate() {
        observer?.invalidate()
        cancel?()
    }

    deinit { invalidate() }
}
