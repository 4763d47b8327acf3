import Dispatch
import StrataStorage

extension Results {
    /// Calls `block` with the results now, then after each commit that changes them — by any
    /// `Database` of the same files in this process — with what changed, as Realm's
    /// `Results.observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = db.objects(Dog.self).where { $0.age > 2 }.sorted(by: \.name).observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change {
    ///         print(deletions, insertions, modifications)
    ///     }
    /// }
    /// ```
    ///
    /// The first delivery is ``CollectionChange/initial(_:)``; each later one an
    /// ``CollectionChange/update(_:deletions:insertions:modifications:)`` against the previous
    /// delivery: deletions and modifications index the previous results, insertions the new
    /// ones. A commit that changes neither which objects match, nor their order, nor an observed
    /// property of one of them delivers nothing. Commits made while a delivery is queued are
    /// delivered together (one delivery covers them); deliveries come in commit order.
    ///
    /// The results the block gets are read through a `Database` Strata opens for the queue and
    /// may be used there (on the queue, during and after the callback).
    ///
    /// - Parameters:
    ///   - keyPaths: the properties whose changes make an object count as modified (`nil`:
    ///     any stored property of the object itself). A key path through links (`"dog.age"`,
    ///     `"dogs.age"`) counts the link and the named property of the objects it leads to.
    ///   - queue: the queue to deliver on (a concurrent one gets one delivery at a time); `nil` delivers on a serial queue Strata owns,
    ///     shared by every observer without one.
    ///   - block: called on the queue; gets ``CollectionChange/error(_:)`` (and nothing after it)
    ///     for frozen results, an unknown property in `keyPaths`, or a database that cannot be
    ///     opened on the queue.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here. A delivery reads again the records of the objects the commits
    ///   changed, and runs the query again unless no object came or went and the query is the
    ///   whole class, or unsorted on the object's own fields with no changed object entering or
    ///   leaving it; a key path through links makes it read every match again.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        NotificationToken(observer: ChangeObserver(
            store: database.shared, queue: queue, makeWorker: observation(keyPaths: keyPaths, block)))
    }

    /// Calls `block` on `actor` with the results now, then after each commit that changes them, as ``observe(keyPaths:on:_:)-([String]?,_,_)`` does on a queue
    /// (Realm's `observe(keyPaths:on:_:)` with an actor): the initial delivery has run on `actor` when this
    /// returns, and each later delivery runs as a job of `actor`, in commit order. The values a
    /// delivery carries are frozen at its version (as ``changes``'), so the block may keep them;
    /// `thaw()` gives live ones on the actor.
    ///
    /// - Parameters:
    ///   - keyPaths: as for ``observe(keyPaths:on:_:)-([String]?,_,_)``.
    ///   - actor: the actor every delivery runs on.
    ///   - isolation: the caller's actor (filled in by the compiler).
    ///   - block: called on `actor` with each change.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here besides the first delivery; each later one costs what a queue's does.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, CollectionChange<Results<Element>>) -> Void
    ) async -> NotificationToken {
        await changes(keyPaths: keyPaths).deliver(on: actor, block)
    }

    /// The changes of these results as an `AsyncSequence` (see ``ChangeSequence``): what
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` delivers, with frozen results.
    ///
    /// ```swift
    /// for await change in db.objects(Dog.self).changes {
    ///     if case .update(let dogs, _, let insertions, _) = change { print(dogs.count, insertions) }
    /// }
    /// ```
    /// - Complexity: O(1) here; each change costs what a callback's delivery does.
    public var changes: ChangeSequence<CollectionChange<Results<Element>>> { changes(keyPaths: nil) }

    /// The changes of these results, the objects' properties `keyPaths` names counting for
    /// modifications, as an `AsyncSequence` (see ``changes``).
    /// - Complexity: O(1) here; each change costs what a callback's delivery does.
    public func changes(keyPaths: [String]?) -> ChangeSequence<CollectionChange<Results<Element>>> {
        ChangeSequence(store: database.shared) { deliver in
            observation(keyPaths: keyPaths) { deliver($0.mapCollection { $0.freeze() }) }
        }
    }

    /// What makes the worker of an observation of these results delivering to `block`.
    private func observation(
        keyPaths: [String]?, _ block: @escaping (CollectionChange<Results<Element>>) -> Void
    ) -> () -> any ObservationWorker {
        guard !database.isFrozen else {
            let error = StrataError(.invalidArgument, "frozen results never change: they cannot be observed")
            return { FailedObservationWorker { block(.error(error)) } }
        }
        let (configuration, handover) = (database.configuration, _ThreadSafeHandover(query: query))
        return { ResultsObservationWorker(configuration: configuration, handover: handover, keyPaths: keyPaths, block: block) }
    }
}
