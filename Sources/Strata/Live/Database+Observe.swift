import Dispatch
import StrataStorage

extension Database {
    /// What a whole-database observer is told, as Realm's `Realm.Notification`.
    ///
    /// Realm's other case, `refreshRequired`, is for a Realm that does not refresh by itself; a
    /// live `Database` always reads the latest commit, so Strata has no such case.
    ///
    /// A value; `Sendable`.
    public enum Notification: Sendable, Hashable {
        /// One or more commits were published since the previous notification.
        case didChange
    }

    /// Calls `block` after each commit to these files — by any `Database` of them in this
    /// process, this one included — with ``Notification/didChange`` and a live `Database` that
    /// reads it, as Realm's `Realm.observe(_:)`. Nothing is delivered at the start. Commits
    /// made while a delivery is queued are delivered together, as one notification.
    ///
    /// ```swift
    /// let token = db.observe { notification, database in
    ///     print(notification, database.objects(Dog.self).count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: a serial queue to deliver on; `nil` delivers on a serial queue Strata owns,
    ///     shared by every observer without one (as for ``Results/observe(keyPaths:on:_:)``).
    ///   - block: called on the queue with a `Database` Strata opens for it (use it there);
    ///     not called for a frozen database, which never changes.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here and per delivery.
    public func observe(
        on queue: DispatchQueue? = nil, _ block: @escaping (Notification, Database) -> Void
    ) -> NotificationToken {
        NotificationToken(observer: ChangeObserver(notifier: shared.notifier, queue: queue, makeWorker: observation(block)))
    }

    /// The database's commits as an `AsyncSequence` of notifications (see ``ChangeSequence``
    /// for buffering and ending); a frozen database's ends at once.
    ///
    /// ```swift
    /// for await _ in db.changes { print("committed") }
    /// ```
    /// - Complexity: O(1) here and per notification.
    public var changes: ChangeSequence<Notification> {
        ChangeSequence(notifier: shared.notifier) { deliver in observation { notification, _ in deliver(notification) } }
    }

    /// What makes the worker of a whole-database observation delivering to `block`.
    private func observation(_ block: @escaping (Notification, Database) -> Void) -> () -> any ObservationWorker {
        guard !isFrozen else { return { FailedObservationWorker {} } }
        let (configuration, sequence) = (self.configuration, shared.store.sequence)
        return { DatabaseObservationWorker(configuration: configuration, registeredSequence: sequence, block: block) }
    }
}

/// The work of one whole-database observer on its delivery queue: it tells its block when the
/// store's published sequence moved since its last delivery (or since the observation was
/// registered), through a `Database` of its own.
final class DatabaseObservationWorker: ObservationWorker {
    private let configuration: Database.Configuration
    private let block: (Database.Notification, Database) -> Void
    private var database: Database?
    private var sequence: UInt64

    init(configuration: Database.Configuration, registeredSequence: UInt64,
         block: @escaping (Database.Notification, Database) -> Void) {
        self.configuration = configuration
        self.sequence = registeredSequence
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        guard let database = try? self.database ?? Database(configuration: configuration) else {
            // The files were open when the observation was registered and its token keeps them
            // open; a failure to open them again here ends the observation without a call.
            return false
        }
        self.database = database
        let now = database.shared.store.sequence
        guard now != sequence else { return true }
        sequence = now
        _ = database.readVersion()
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        if !isCancelled() { block(.didChange, database) }
        return true
    }
}
