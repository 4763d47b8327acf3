import Dispatch
import StrataStorage

extension ThreadConfined where Self: Sequence, Element: Object {
    /// Registers a `CollectionObservationWorker` for this collection (see `List.observe`).
    func observeCollection(
        database: Database?, keyPaths: [String]?, queue: DispatchQueue?,
        _ block: @escaping (CollectionChange<Self>) -> Void
    ) -> NotificationToken {
        let notifier = database?.shared.notifier ?? CommitNotifier()
        do {
            let handover = try _strataHandover()
            guard let database, !isFrozen else {
                throw StrataError(.invalidArgument, "a frozen collection never changes: it cannot be observed")
            }
            let configuration = database.configuration
            return NotificationToken(observer: ChangeObserver(notifier: notifier, queue: queue) {
                CollectionObservationWorker(configuration: configuration, handover: handover, keyPaths: keyPaths, block: block)
            })
        } catch {
            return NotificationToken(observer: ChangeObserver(notifier: notifier, queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            })
        }
    }
}

extension List where Element: Object {
    /// Calls `block` with the list now, then after each commit that changes it — which objects
    /// it holds, their order, or an observed property of one — with what changed, as Realm's
    /// `List.observe(keyPaths:on:_:)`. Deliveries, queues, key paths and buffering are as
    /// ``Results/observe(keyPaths:on:_:)``'s; an object the list holds twice is matched
    /// occurrence by occurrence. When the list's owner is deleted, the observation ends with
    /// ``CollectionChange/error(_:)``.
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
        _ block: @escaping (CollectionChange<List<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }
}

extension MutableSet where Element: Object {
    /// Calls `block` with the set now, then after each commit that changes it, as
    /// ``List/observe(keyPaths:on:_:)`` (indexes are positions in the set's order).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the set and its objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (CollectionChange<MutableSet<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }
}

extension LinkingObjects {
    /// Calls `block` with the objects linking here now, then after each commit that changes
    /// them, as ``List/observe(keyPaths:on:_:)``.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery reads the backlinks and the objects' records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (CollectionChange<LinkingObjects<Element>>) -> Void
    ) -> NotificationToken {
        observeCollection(database: binding?.database, keyPaths: keyPaths, queue: queue, block)
    }
}
