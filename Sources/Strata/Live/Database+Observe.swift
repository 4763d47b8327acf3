import Dispatch
import StrataStorage

extension Database {
    /// What a whole-database observer is told, as Realm's `Realm.Notification`.
    ///
    /// A value; `Sendable`.
    public enum Notification: Sendable, Hashable {
        /// The database advanced to a newer commit: its own write, ``Database/refresh()``, an
        /// autorefresh (see ``Database/autorefresh``), or the first read after
        /// ``Database/invalidate()``.
        case didChange
        /// A commit landed that the database will not read by itself (it is not opened on an
        /// actor, or ``Database/autorefresh`` is off): call ``Database/refresh()`` to read it.
        case refreshRequired
    }

    /// Calls `block` with ``Notification/didChange`` each time this database advances to a newer
    /// commit, and with ``Notification/refreshRequired`` each time another `Database` of these
    /// files (in this process, or the writing process a read-only database follows) commits
    /// something this database will not read by itself, as Realm's `Realm.observe(_:)`. Nothing is
    /// delivered at the start. Notifications posted while a delivery is queued are delivered
    /// together (two of the same kind in a row as one).
    ///
    /// ```swift
    /// let token = db.observe { notification, database in
    ///     print(notification, database.objects(Dog.self).count)
    /// }
    /// ```
    ///
    /// The observation outlives this `Database`: once it is released, every later commit is
    /// ``Notification/refreshRequired`` (nothing reads it).
    ///
    /// Thread safety: `block` is `@Sendable`: it runs on `queue`, not on the thread or actor that
    /// called this, so the compiler refuses a block that touches state isolated there. It gets a
    /// live `Database` Strata opens for it on the queue, at the newest commit (use it there only).
    ///
    /// - Parameters:
    ///   - queue: the queue to deliver on (a concurrent queue is used serially: one delivery at a
    ///     time); `nil` delivers on a serial queue Strata owns, shared by every observer without
    ///     one (as for ``Results/observe(keyPaths:on:_:)-([String]?,_,_)``).
    ///   - block: called on the queue; not called for a frozen database, which never changes.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here and per delivery.
    public func observe(
        on queue: DispatchQueue? = nil, _ block: @escaping @Sendable (Notification, Database) -> Void
    ) -> NotificationToken {
        let (makeWorker, inbox) = observation(block)
        let observer = ChangeObserver(store: shared, queue: queue, makeWorker: makeWorker)
        inbox?.whenPut { [weak observer] in observer?.schedule() }
        return NotificationToken(observer: observer)
    }

    /// Calls `block` on `actor` with each of this database's notifications (see
    /// ``observe(on:_:)``): each delivery runs as a job of `actor`, in order. `isolation` is the
    /// caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here and per notification.
    public func observe<A: Actor>(
        on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, Notification) -> Void
    ) -> NotificationToken {
        changes.deliverLater(on: actor, block)
    }

    /// The database's notifications (see ``observe(on:_:)``) as an `AsyncSequence` (see
    /// ``ChangeSequence`` for buffering and ending); a frozen database's ends at once.
    ///
    /// ```swift
    /// for await notification in db.changes { print(notification) }
    /// ```
    /// - Complexity: O(1) here and per notification.
    public var changes: ChangeSequence<Notification> {
        var inbox: NotificationInbox?
        return ChangeSequence(store: shared, observation: { deliver in
            let (makeWorker, registered) = observation { notification, _ in deliver(notification) }
            inbox = registered
            return makeWorker
        }, attached: { observer in inbox?.whenPut { [weak observer] in observer?.schedule() } })
    }

    /// What makes the worker of a whole-database observation delivering to `block`, and the inbox
    /// this database posts its notifications to (nil for a frozen database).
    private func observation(
        _ block: @escaping (Notification, Database) -> Void
    ) -> (makeWorker: () -> any ObservationWorker, inbox: NotificationInbox?) {
        guard let events else { return ({ FailedObservationWorker {} }, nil) }
        let registration = InboxRegistration(events: events)
        let configuration = configuration
        return ({ DatabaseObservationWorker(configuration: configuration, registration: registration, block: block) }, registration.inbox)
    }
}

/// The work of one whole-database observer on its delivery queue: it delivers the notifications
/// its inbox holds through a `Database` of its own, at the newest commit.
final class DatabaseObservationWorker: ObservationWorker {
    private let configuration: Database.Configuration
    private let registration: InboxRegistration
    private let block: (Database.Notification, Database) -> Void
    private var database: Database?

    init(configuration: Database.Configuration, registration: InboxRegistration,
         block: @escaping (Database.Notification, Database) -> Void) {
        self.configuration = configuration
        self.registration = registration
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        let notifications = registration.inbox.take()
        guard !notifications.isEmpty else { return true }
        guard let database = try? self.database ?? Database(opening: configuration, autorefreshingOn: nil) else {
            // The files were open when the observation was registered and its observer keeps
            // them open; a failure to open them again here ends the observation without a call.
            return false
        }
        self.database = database
        database.advance()
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        for notification in notifications where !isCancelled() { block(notification, database) }
        return true
    }
}
