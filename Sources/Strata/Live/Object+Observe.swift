import Dispatch
import StrataStorage

extension Object {
    /// Calls `block` after each commit that changes the object's observed properties — by any
    /// `Database` of the same files in this process — with each property's old and new value,
    /// and once with ``ObjectChange/deleted`` when it is deleted, as Realm's
    /// `Object.observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = rex.observe(keyPaths: ["name", "age"]) { (change: ObjectChange<Dog>) in
    ///     if case .change(_, let properties) = change {
    ///         for p in properties { print(p.name, p.oldValue ?? "-", p.newValue ?? "-") }
    ///     }
    /// }
    /// ```
    ///
    /// Nothing is delivered at the start. Changes are measured from the object as it is when
    /// `observe` is called; commits made while a delivery is queued are delivered together
    /// (the old values are those of the previous delivery). The object the block gets is read
    /// through a `Database` Strata opens for the queue and may be used there.
    ///
    /// - Parameters:
    ///   - keyPaths: the properties that notify (`nil`: every stored property of the object
    ///     itself). A key path through links (`"dog.age"`) counts the link and the named
    ///     property of the objects it leads to; the change is reported under the first
    ///     property's name (`dog`), without values.
    ///   - queue: the queue to deliver on (a concurrent one gets one delivery at a time); `nil` delivers on a serial queue Strata owns.
    ///   - block: called on the queue; gets ``ObjectChange/error(_:)`` (and nothing after it)
    ///     for an unmanaged, frozen or deleted object, a block whose type is not the object's
    ///     class, an unknown property in `keyPaths`, or a database that cannot be opened there.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery after a commit reads the object's record.
    public func observe<T: ObjectBase>(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (ObjectChange<T>) -> Void
    ) -> NotificationToken {
        let store = _strataState?.database.shared
        return NotificationToken(observer: ChangeObserver(store: store, queue: queue, makeWorker: observation(keyPaths: keyPaths, block)))
    }

    /// What makes the worker of an observation of this object delivering to `block`. The
    /// observed values are read here, at the caller's version (links followed too): a commit
    /// made before the worker starts on its queue is then a change.
    func observation<T: ObjectBase>(keyPaths: [String]?, _ block: @escaping (ObjectChange<T>) -> Void) -> () -> any ObservationWorker {
        do {
            guard let state = _strataState else { throw _ThreadSafeHandover.unmanaged("object") }
            guard !state.database.isFrozen else {
                throw StrataError(.invalidArgument, "a frozen object never changes: it cannot be observed")
            }
            let handover = try _ThreadSafeHandover(object: state)
            let fields = try ObservedProperties(keyPaths: keyPaths, schema: state.schema)
                .project(state.currentFields() ?? [], in: state.database)
            let configuration = state.database.configuration
            return {
                ObjectObservationWorker(
                    configuration: configuration, handover: handover, keyPaths: keyPaths, registeredValues: fields, block: block)
            }
        } catch {
            return { FailedObservationWorker { block(.error(error)) } }
        }
    }
}

extension ThreadConfined where Self: Object {
    /// The changes of this object as an `AsyncSequence` (see ``ChangeSequence``): what
    /// ``Object/observe(keyPaths:on:_:)`` delivers, the object (and each linked object among
    /// the property values) frozen at the change's version.
    ///
    /// ```swift
    /// for await change in rex.changes(keyPaths: ["age"]) {
    ///     if case .change(let dog, _) = change { print(dog.age) }
    /// }
    /// ```
    /// - Parameter keyPaths: the properties that notify (`nil`: every stored property of the
    ///   object itself).
    /// - Complexity: O(1) here (reading the object's observed values); each change reads its
    ///   record.
    public func changes(keyPaths: [String]? = nil) -> ChangeSequence<ObjectChange<Self>> {
        ChangeSequence(store: _strataState?.database.shared) { deliver in
            observation(keyPaths: keyPaths) { (change: ObjectChange<Self>) in deliver(change.frozen()) }
        }
    }

    /// Calls `block` on `actor` after each commit that changes the object, as
    /// ``observe(keyPaths:on:_:)`` does on a queue: each delivery runs as a job of `actor`, in
    /// commit order, carrying a frozen object (as ``changes(keyPaths:)``). `isolation` is the
    /// caller's actor (filled in by the compiler).
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here (reading the object's observed values); each delivery reads its
    ///   record.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        changes(keyPaths: keyPaths).deliverLater(on: actor, block)
    }
}
