import StrataStorage

/// The changes of an observed value as an `AsyncSequence`: `results.changes`,
/// `object.changes(keyPaths:)`, `list.changes`, `database.changes`.
///
/// ```swift
/// for await change in db.objects(Dog.self).where { $0.age > 2 }.changes {
///     if case .update(let dogs, let deletions, let insertions, let modifications) = change {
///         print(dogs.count, deletions, insertions, modifications)
///     }
/// }
/// ```
///
/// It delivers what the callback form (`observe(keyPaths:on:_:)`) delivers — the same first
/// delivery, the same change sets against the previous element — except that each collection
/// or object it carries is **frozen** at the version the change was computed for, so it may
/// be read in whatever task iterates (`thaw()` gives a live one there).
///
/// The observation starts when the sequence is made (an object's changes count from then) and
/// ends when the iterating task is cancelled, when the sequence and its iterators are
/// released, or after a final `.deleted` or `.error`. Buffering: at most one change waits for
/// the iterating task; while it waits, later commits are not computed but coalesced, and the
/// change computed when the task asks again covers them all. Memory stays bounded however slow
/// the consumer is, and the writer never waits for it.
///
/// Thread safety: `Sendable`. Iterate it from one task at a time (a second iterator takes
/// changes from the same observation).
public struct ChangeSequence<Change>: AsyncSequence, Sendable {
    public typealias Element = Change
    public typealias Failure = Never

    let subscription: ChangeSubscription<Change>

    /// Registers an observation of `store`'s commits (nil: of nothing) that delivers into a
    /// mailbox: `observation` gets the block the worker calls with each change and returns the
    /// worker's maker; `attached` is told of the observer made.
    init(
        store: SharedStore?, observation: (_ deliver: @escaping (Change) -> Void) -> () -> any ObservationWorker,
        attached: (ChangeObserver) -> Void = { _ in }
    ) {
        let mailbox = ChangeMailbox<Change>()
        let makeWorker = observation { mailbox.put($0) }
        let observer = ChangeObserver(store: store, queue: nil) { MailboxWorker(inner: makeWorker(), mailbox: mailbox) }
        mailbox.attach(observer)
        attached(observer)
        subscription = ChangeSubscription(mailbox: mailbox)
    }

    /// An iterator over the changes.
    /// - Complexity: O(1).
    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscription) }

    /// Iterates the changes of one observation; see ``ChangeSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ChangeSubscription<Change>

        /// The next change, when it comes; nil once the observation ended or the task was
        /// cancelled.
        /// - Complexity: O(1) here; the change itself is computed on the delivery queue.
        public mutating func next() async -> Change? {
            await subscription.mailbox.take()?.change
        }

        /// The next change, as ``next()``, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Change? {
            await subscription.mailbox.take()?.change
        }
    }
}

/// Ends a ``ChangeSequence``'s observation when the sequence and its iterators are released.
final class ChangeSubscription<Change>: Sendable {
    let mailbox: ChangeMailbox<Change>

    init(mailbox: ChangeMailbox<Change>) { self.mailbox = mailbox }

    deinit { mailbox.cancel() }
}

/// A change on its way from the delivery queue to the iterating task. It holds only frozen
/// values (see ``ChangeSequence``), which any thread may read, and goes to one task.
struct ChangeHandoff<Change>: @unchecked Sendable {
    let change: Change
}
