/// Observing on an actor: the changes of a `ChangeSequence` delivered, in order, to a block
/// isolated to the actor (Realm's `observe(keyPaths:on actor:_:)`).
extension ChangeSequence {
    /// Delivers the first change to `block` on `actor` before returning, then each later one, in
    /// order, until the token is invalidated or released.
    func deliver<A: Actor>(on actor: A, _ block: @escaping @Sendable (isolated A, Change) -> Void) async -> NotificationToken {
        if let first = await subscription.mailbox.take() {
            await actor.deliverStrataChange(first, to: block)
        }
        return deliverLater(on: actor, block)
    }

    /// Delivers each change to `block` on `actor`, in order, until the token is invalidated or
    /// released (for an observation with no initial delivery: an object's, a database's).
    func deliverLater<A: Actor>(on actor: A, _ block: @escaping @Sendable (isolated A, Change) -> Void) -> NotificationToken {
        let subscription = self.subscription
        // Weak: an actor that keeps the token would otherwise be kept by it for ever.
        let target = WeakActor(actor)
        let task = Task {
            while let next = await subscription.mailbox.take(), let actor = target.actor {
                await actor.deliverStrataChange(next, to: block)
            }
        }
        return NotificationToken(observer: nil) { task.cancel() }
    }
}

extension Actor {
    /// Runs `block` with a change as a job of this actor.
    fileprivate func deliverStrataChange<Change>(
        _ handoff: ChangeHandoff<Change>, to block: @Sendable (isolated Self, Change) -> Void
    ) {
        block(self, handoff.change)
    }
}

/// A weak reference to an actor, for a task that must not keep it alive. Written once, at
/// `init`; Swift's weak loads are thread-safe.
private final class WeakActor<A: Actor>: @unchecked Sendable {
    weak var actor: A?

    init(_ actor: A) { self.actor = actor }
}
