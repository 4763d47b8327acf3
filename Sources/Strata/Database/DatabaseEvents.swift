import StrataStorage

/// What one live `Database` hears of the commits to its files, and what it tells its own
/// observers (`Database.observe(on:_:)`):
/// - a commit made through another `Database` (or by the writing process a read-only store
///   follows) either schedules an autorefresh — a job on the actor the database was opened on,
///   which advances it between that actor's jobs — or, when the database will not read the commit
///   by itself, tells its observers `.refreshRequired`;
/// - the database advancing (its own commit, `refresh()`, an autorefresh, the first read after
///   `invalidate()`) tells them `.didChange` (`post(_:)`).
///
/// Registered with the store's `CommitNotifier` from the database's `init` until this goes: with
/// the database, or after it when an observation of the database outlives it (its
/// `InboxRegistration` keeps this; commits are then `.refreshRequired`, as nothing reads them).
///
/// Thread-safe: its state sits behind a lock. The database it refers to is only used on the
/// actor it was opened on (the autorefresh job runs there); elsewhere it is only compared.
final class DatabaseEvents: Sendable {
    private struct State {
        var autorefresh = true
        /// An autorefresh job is queued on `actor` and has not run yet.
        var isScheduled = false
        /// Dereferenced only on `actor`, where the database lives.
        weak var database: Database?
        /// The actor the database was opened on (weak: an actor that owns its database holds
        /// this through it).
        weak var actor: (any Actor)?
        var inboxes: [ObjectIdentifier: NotificationInbox] = [:]
    }

    private let notifier: CommitNotifier
    /// Whether the database was opened on an actor: otherwise it never autorefreshes.
    private let isOnActor: Bool
    private let state = Locked(State())

    init(notifier: CommitNotifier, actor: (any Actor)?) {
        self.notifier = notifier
        self.isOnActor = actor != nil
        state.withLock { $0.actor = actor }
    }

    /// Starts listening to the store's commits on behalf of `database`.
    func attach(_ database: Database) {
        state.withLock { $0.database = database }
        notifier.addListener(ObjectIdentifier(self)) { [weak self] origin in self?.commitLanded(by: origin) }
    }

    deinit { notifier.removeListener(ObjectIdentifier(self)) }

    /// See `Database.autorefresh`: on only when the database was opened on an actor.
    var autorefresh: Bool {
        get { isOnActor && state.withLock { $0.autorefresh } }
        set { state.withLock { $0.autorefresh = newValue } }
    }

    /// Registers an observer's inbox; `post(_:)` puts each notification in it.
    func add(_ inbox: NotificationInbox) { state.withLock { $0.inboxes[ObjectIdentifier(inbox)] = inbox } }

    func remove(_ inbox: NotificationInbox) { _ = state.withLock { $0.inboxes.removeValue(forKey: ObjectIdentifier(inbox)) } }

    /// Tells every registered observer `notification`.
    func post(_ notification: Database.Notification) {
        let inboxes = state.withLock { Array($0.inboxes.values) }
        for inbox in inboxes { inbox.put(notification) }
    }

    /// A commit was published by the database `origin` (nil: the writing process a read-only
    /// store follows). Called on the committing thread.
    private func commitLanded(by origin: ObjectIdentifier?) {
        let (autorefreshes, scheduleOn, isOrigin) = state.withLock { state -> (Bool, (any Actor)?, Bool) in
            let isOrigin = origin != nil && state.database.map(ObjectIdentifier.init) == origin
            let actor = state.actor
            let autorefreshes = actor != nil && state.autorefresh && state.database != nil
            let scheduleNow = autorefreshes && !isOrigin && !state.isScheduled
            if scheduleNow { state.isScheduled = true }
            return (autorefreshes, scheduleNow ? actor : nil, isOrigin)
        }
        // The database's own commit moved it already (and told its observers).
        guard !isOrigin else { return }
        guard autorefreshes else {
            post(.refreshRequired)
            return
        }
        if let actor = scheduleOn {
            Task { await actor.runAutorefresh(of: self) }
        }
    }

    /// The autorefresh job, on the database's actor.
    fileprivate func autorefreshOnActor() {
        let database = state.withLock { state -> Database? in
            state.isScheduled = false
            return state.autorefresh ? state.database : nil
        }
        database?.advanceAndNotify()
    }
}

extension Actor {
    /// Runs a database's autorefresh as a job of this actor.
    fileprivate func runAutorefresh(of events: DatabaseEvents) {
        events.autorefreshOnActor()
    }
}

/// The notifications posted to one observer of a `Database` and not delivered yet, in order.
/// A put queues a delivery of the observer it is attached to.
///
/// Thread-safe: behind a lock.
final class NotificationInbox: Sendable {
    private struct State {
        var pending: [Database.Notification] = []
        /// Queues the observer's delivery (weak: the observer owns the inbox's registration).
        var schedule: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Makes each put queue a delivery through `schedule`.
    func whenPut(_ schedule: @escaping @Sendable () -> Void) { state.withLock { $0.schedule = schedule } }

    func put(_ notification: Database.Notification) {
        let schedule = state.withLock { state in
            // Two of the same in a row say no more than one.
            if state.pending.last != notification { state.pending.append(notification) }
            return state.schedule
        }
        schedule?()
    }

    /// What was put since the last call.
    func take() -> [Database.Notification] {
        state.withLock { state in
            defer { state.pending.removeAll() }
            return state.pending
        }
    }
}

/// Keeps an inbox registered with a database's events while an observation's worker (or the
/// maker of its worker) holds it: the last reference going removes it.
final class InboxRegistration: Sendable {
    let inbox = NotificationInbox()
    private let events: DatabaseEvents

    init(events: DatabaseEvents) {
        self.events = events
        events.add(inbox)
    }

    deinit { events.remove(inbox) }
}
