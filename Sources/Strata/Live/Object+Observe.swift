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
    ///   - queue: a serial queue to deliver on; `nil` delivers on a serial queue Strata owns.
    ///   - block: called on the queue; gets ``ObjectChange/error(_:)`` (and nothing after it)
    ///     for an unmanaged, frozen or deleted object, a block whose type is not the object's
    ///     class, an unknown property in `keyPaths`, or a database that cannot be opened there.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery after a commit reads the object's record.
    public func observe<T: ObjectBase>(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<T>) -> Void
    ) -> NotificationToken {
        guard let state = _strataState else {
            let error = _ThreadSafeHandover.unmanaged("object")
            let observer = ChangeObserver(notifier: CommitNotifier(), queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            }
            return NotificationToken(observer: observer)
        }
        let notifier = state.database.shared.notifier
        let handover: _ThreadSafeHandover
        let fields: [FieldValue]
        do {
            guard !state.database.isFrozen else {
                throw StrataError(.invalidArgument, "a frozen object never changes: it cannot be observed")
            }
            handover = try _ThreadSafeHandover(object: state)
            // Read here, at the caller's version (links followed too): a commit made before the
            // worker starts on the queue is then a change.
            fields = try ObservedProperties(keyPaths: keyPaths, schema: state.schema)
                .project(state.currentFields() ?? [], in: state.database)
        } catch {
            return NotificationToken(observer: ChangeObserver(notifier: notifier, queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            })
        }
        let configuration = state.database.configuration
        return NotificationToken(observer: ChangeObserver(notifier: notifier, queue: queue) {
            ObjectObservationWorker(
                configuration: configuration, handover: handover, keyPaths: keyPaths, registeredValues: fields, block: block)
        })
    }
}
