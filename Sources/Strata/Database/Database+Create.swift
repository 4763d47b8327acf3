import StrataStorage

// Realm's other ways in and out of a write: adding a sequence, creating an object from an untyped
// value (with partial updates by primary key), deleting everything.

extension Database {
    /// Adds every object of `objects` as ``add(_:update:)-(Object,_)`` does, in order.
    ///
    /// ```swift
    /// try db.write { try db.add([Dog(), Dog()]) }
    /// ```
    ///
    /// Thread safety: on the database's thread, inside its write.
    /// - Throws: what ``add(_:update:)-(Object,_)`` throws, at the first object that fails (the objects
    ///   before it stay added in the open write; a throw out of `write { }` undoes them all).
    /// - Complexity: the sum of the adds.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
        for object in objects { try add(object, update: update) }
    }

    /// Creates an object of `type` from an untyped `value` (the forms of
    /// ``ObjectBase/init(value:)``: a dictionary of property values, an array of them in property
    /// order, or an object to copy) and returns it, managed.
    ///
    /// With `.modified` or `.all`, when an object with the value's primary key is stored, that
    /// object is updated instead and returned: the properties `value` names are written
    /// (`.modified`: only those whose stored value differs; `.all`: all of them), the others
    /// keep their stored values. A new object takes its defaults for the properties `value`
    /// does not name. Unmanaged objects the value links to (nested dictionaries included) are
    /// created or updated with the same policy, as Realm's.
    ///
    /// ```swift
    /// let rex = try db.create(Dog.self, value: ["name": "Rex", "age": 3])
    /// try db.create(Dog.self, value: ["_id": rex._id, "age": 4], update: .modified)
    /// ```
    ///
    /// Thread safety: on the database's thread, inside its write.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` outside a write; `.wrongDatabase` when
    ///   `type` is not one of the database's object types; `.invalidValue` naming the class and
    ///   property when `value` does not fit (nothing is written then); `.primaryKeyExists` with
    ///   `.error` when the primary key is stored already; `.invalidArgument` for `.modified` or
    ///   `.all` on a class without a primary key (as Realm); what ``add(_:update:)-(Object,_)``
    ///   throws.
    /// - Complexity: O(n) in the size of `value`, plus the objects it adds.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        guard transaction != nil else {
            throw StrataError(.notInWriteTransaction, "create() outside a write transaction: call it inside `try db.write { }`")
        }
        guard let schema = schemas.schema(for: type) else {
            throw StrataError(.wrongDatabase, "\(type.className()) is not one of the database's objectTypes")
        }
        try checkUpdatable(type, update)
        let object = T()
        try object.setProperties(from: value, schema: schema)
        try withLinkedUpdatePolicy(update, mergingGivenProperties: true) { _ = try addObject(object, update: update) }
        return object
    }
}
