/// What an object's change notification delivers, as Realm's `ObjectChange`.
///
/// ```swift
/// let token = rex.observe(keyPaths: ["age"]) { (change: ObjectChange<Dog>) in
///     switch change {
///     case .change(let dog, let properties):
///         for p in properties { print(dog.name, p.name, p.oldValue ?? "-", p.newValue ?? "-") }
///     case .deleted: print("gone")
///     case .error(let error): print(error)
///     }
/// }
/// ```
///
/// Thread safety: as the object it carries (not `Sendable`): use it on the delivery queue.
public enum ObjectChange<T: ObjectBase> {
    /// Observed properties of the object changed: the object (read through the delivery
    /// queue's database) and each changed property.
    case change(T, [PropertyChange])
    /// The object was deleted; no delivery follows.
    case deleted
    /// The observation could not start; no delivery follows.
    case error(any Error)
}

/// One property that changed, in an ``ObjectChange/change(_:_:)`` delivery.
///
/// The values are the property's Swift values as stored at the previous delivery and now. A
/// link's value is the linked object read now. For a `List`, `MutableSet`, `Map` or embedded
/// object property, and for a change seen through a key path into a link (`"dog.age"`, reported
/// as `dog`), both values are nil (read the property on the object).
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value at the previous delivery (nil for a collection or embedded property).
    public let oldValue: Any?
    /// The value now (nil for a collection or embedded property).
    public let newValue: Any?
}

extension ObjectChange where T: Object {
    /// The same change with the object, and each object among the values, frozen at the
    /// version they were read at (the delivery's).
    func frozen() -> ObjectChange {
        guard case .change(let object, let properties) = self else { return self }
        func frozen(_ value: Any?) -> Any? { (value as? Object)?.frozenCopy() ?? value }
        return .change(object.frozenCopy() ?? object, properties.map {
            PropertyChange(name: $0.name, oldValue: frozen($0.oldValue), newValue: frozen($0.newValue))
        })
    }
}

extension Object {
    /// This object read through a frozen view of its database's current version; nil when it
    /// is unmanaged or does not exist there.
    func frozenCopy() -> Self? {
        guard let state = _strataState else { return nil }
        return state.database.freeze().frozenCopy(of: state.key, schema: state.schema, as: Self.self)
    }
}
