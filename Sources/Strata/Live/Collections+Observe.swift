import Dispatch
import StrataStorage

extension ObservableCollection {
    /// Registers a `CollectionObservationWorker` for this collection (see `List.observe`).
    func observeCollection(
        database: Database?, keyPaths: [String]?, queue: DispatchQueue?, _ block: @escaping (Change) -> Void
    ) -> NotificationToken {
        let store = database?.shared
        return NotificationToken(observer: ChangeObserver(
            store: store, queue: queue, makeWorker: collectionObservation(database: database, keyPaths: keyPaths, block)))
    }

    /// The changes of this collection as an `AsyncSequence`, collections frozen (see
    /// `List.changes`).
    func collectionChanges(database: Database?, keyPaths: [String]?) -> ChangeSequence<Change> {
        ChangeSequence(store: database?.shared) { deliver in
            collectionObservation(database: database, keyPaths: keyPaths) { deliver(Self.frozen($0)) }
        }
    }

    /// What makes the worker of an observation of this collection delivering to `block`.
    private func collectionObservation(
        database: Database?, keyPaths: [String]?, _ block: @escaping (Change) -> Void
    ) -> () -> any ObservationWorker {
        do {
            let handover = try _strataHandover()
            guard let database, !isFrozen else {
                throw StrataError(.invalidArgument, "a frozen collection never changes: it cannot be observed")
            }
            let configuration = database.configuration
            return { CollectionObservationWorker<Self>(configuration: configuration, handover: handover, keyPaths: keyPaths, block: block) }
        } catch {
            return { FailedObservationWorker { block(Self.failure(error)) } }
        }
    }
}

extension List {
    /// Calls `block` with the list now, then after each commit that changes it — which objects
    /// it holds, their order, or an observed property of one — with what changed, as Realm's
    /// `List.observe(keyPaths:on:_:)`. Deliveries, queues, key paths and buffering are as
    /// ``Results/observe(keyPaths:on:_:)-([String]?,_,_)``'s; an object the list holds twice is matched
    /// occurrence by occurrence. When the list's owner is deleted, the observation ends, as
    /// Realm's, with an update that deletes every element and carries an empty, unmanaged list.
    ///
    /// A list of embedded objects reports an object modified when one of its observed fields
    /// changed. A list of values (`List<Int>`) has no properties to observe (`keyPaths` must
    /// be nil or empty): a value replaced in place (`list[2] = 7`) is a modification at its
    /// position, and equal values are matched as in a list of objects held twice.
    ///
    /// ```swift
    /// let token = ann.dogs.observe(keyPaths: ["age"]) { (change: CollectionChange<List<Dog>>) in
    ///     print(change)
    /// }
    /// ```
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the list and its objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<List<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }

    /// Calls `block` on `actor` with the list now, then after each commit that changes it, as ``observe(keyPaths:on:_:)-([String]?,_,_)`` does on a queue:
    /// the initial delivery has run on `actor` when this returns, and each later one runs as a
    /// job of `actor`, in commit order, carrying a frozen collection (as ``changes``).
    /// `isolation` is the caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here besides the first delivery; each later one costs what a queue's does.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, CollectionChange<List<Element>>) -> Void
    ) async -> NotificationToken {
        await changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}

extension MutableSet {
    /// Calls `block` with the set now, then after each commit that changes it, as
    /// ``List/observe(keyPaths:on:_:)-([String]?,_,_)`` (indexes are positions in the set's order).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the set and its objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<MutableSet<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }

    /// Calls `block` on `actor` with the set now, then after each commit that changes it, as ``observe(keyPaths:on:_:)`` does on a queue:
    /// the initial delivery has run on `actor` when this returns, and each later one runs as a
    /// job of `actor`, in commit order, carrying a frozen collection (as ``changes``).
    /// `isolation` is the caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here besides the first delivery; each later one costs what a queue's does.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, CollectionChange<MutableSet<Element>>) -> Void
    ) async -> NotificationToken {
        await changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}

extension LinkingObjects {
    /// Calls `block` with the objects linking here now, then after each commit that changes
    /// them, as ``List/observe(keyPaths:on:_:)-([String]?,_,_)``.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the backlinks and the objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<LinkingObjects<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }

    /// Calls `block` on `actor` with the objects linking here now, then after each commit that changes them, as ``observe(keyPaths:on:_:)`` does on a queue:
    /// the initial delivery has run on `actor` when this returns, and each later one runs as a
    /// job of `actor`, in commit order, carrying a frozen collection (as ``changes``).
    /// `isolation` is the caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here besides the first delivery; each later one costs what a queue's does.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, CollectionChange<LinkingObjects<Element>>) -> Void
    ) async -> NotificationToken {
        await changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}

extension Map {
    /// Calls `block` with the map now, then after each commit that changes it — which keys it
    /// holds, their values, or an observed property of an object it holds — with the keys
    /// removed, added and changed, as Realm's `Map.observe(keyPaths:on:_:)`. Deliveries, queues,
    /// key paths (of the objects a map of objects holds; nil or empty for values) and buffering
    /// are as ``Results/observe(keyPaths:on:_:)-([String]?,_,_)``'s. When the map's owner is deleted, the
    /// observation ends with an update that deletes every key and carries an empty, unmanaged
    /// map.
    ///
    /// ```swift
    /// let token = ann.nicknames.observe { (change: MapChange<Map<String, String>>) in print(change) }
    /// ```
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the map and its objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (MapChange<Map<Key, Value>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }

    /// Calls `block` on `actor` with the map now, then after each commit that changes it, as ``observe(keyPaths:on:_:)`` does on a queue:
    /// the initial delivery has run on `actor` when this returns, and each later one runs as a
    /// job of `actor`, in commit order, carrying a frozen collection (as ``changes``).
    /// `isolation` is the caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here besides the first delivery; each later one costs what a queue's does.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, MapChange<Map<Key, Value>>) -> Void
    ) async -> NotificationToken {
        await changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}
