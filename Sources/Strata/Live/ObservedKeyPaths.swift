import Dispatch
import StrataStorage

/// The names of key paths given as Swift key paths (`\.name`, `\.dog?.age`): the dotted names
/// `ObservedProperties` reads (`"name"`, `"dog.age"`), found by tracing each key path on the
/// class (`KeyPathTracer`).
/// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` for a key path that reads no `@Persisted`
///   property, or a class the database does not hold.
func observedNames<Root: ObjectBase>(_ keyPaths: [PartialKeyPath<Root>], in database: Database) throws -> [String] {
    guard let schema = database.schemas.schema(for: Root.self) else {
        throw StrataError(.invalidArgument, "\(Root.self) is not one of the database's objectTypes")
    }
    return try keyPaths.map { keyPath in
        guard let indices = KeyPathTracer.trace(keyPath, in: database) else {
            throw StrataError(.invalidArgument, "\(keyPath) does not name a @Persisted property of \(schema.className) to observe")
        }
        var names: [String] = []
        var current: ObjectSchema? = schema
        for index in indices {
            guard let property = current?.properties[index] else { break }
            names.append(property.name)
            current = QueryStep.make(for: property, in: database.schemas).targetSchema
        }
        return names.joined(separator: ".")
    }
}

extension Results {
    /// ``observe(keyPaths:on:_:)`` with the observed properties given as Swift key paths
    /// (`[\.name, \.dog?.age]`), as Realm's `observe(keyPaths: [PartialKeyPath<Element>])`. A
    /// key path that names no `@Persisted` property is delivered as
    /// ``CollectionChange/error(_:)``.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(k) here for k key paths (each traced once per process); deliveries as
    ///   ``observe(keyPaths:on:_:)``'s.
    public func observe(
        keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        do {
            return observe(keyPaths: try observedNames(keyPaths, in: database), on: queue, block)
        } catch {
            return NotificationToken(observer: ChangeObserver(store: database.shared, queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            })
        }
    }
}

extension ThreadConfined where Self: Object {
    /// ``Object/observe(keyPaths:on:_:)`` with the observed properties given as Swift key paths
    /// (`[\.name, \.age]`), as Realm's `observe(keyPaths: [PartialKeyPath<T>])`. A key path that
    /// names no `@Persisted` property is delivered as ``ObjectChange/error(_:)``.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(k) here for k key paths; deliveries as ``Object/observe(keyPaths:on:_:)``'s.
    public func observe(
        keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        do {
            guard let database = _strataState?.database else { throw _ThreadSafeHandover.unmanaged("object") }
            return observe(keyPaths: try observedNames(keyPaths, in: database), on: queue, block)
        } catch {
            return NotificationToken(observer: ChangeObserver(store: nil, queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            })
        }
    }
}

extension List where Element: Object {
    /// ``observe(keyPaths:on:_:)`` with the observed properties of the list's objects given as
    /// Swift key paths, as Realm's `observe(keyPaths: [PartialKeyPath<Element>])`. A key path
    /// that names no `@Persisted` property is delivered as ``CollectionChange/error(_:)``.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(k) here for k key paths; deliveries as ``observe(keyPaths:on:_:)``'s.
    public func observe(
        keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (CollectionChange<List<Element>>) -> Void
    ) -> NotificationToken {
        do {
            guard let database = binding?.database else { throw _ThreadSafeHandover.unmanaged("List") }
            return observe(keyPaths: try observedNames(keyPaths, in: database), on: queue, block)
        } catch {
            return NotificationToken(observer: ChangeObserver(store: nil, queue: queue) {
                FailedObservationWorker { block(.error(error)) }
            })
        }
    }
}
