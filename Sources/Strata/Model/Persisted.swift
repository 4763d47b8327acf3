/// Declares a stored property of an `Object` or `EmbeddedObject` subclass.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var name: String
///     @Persisted(indexed: true) var age: Int
/// }
/// ```
///
/// Before the object is added to a database, the property holds its value in the object
/// itself. Once the object is managed, reads and writes go to the database: reads see the latest
/// commit (or the version a frozen object was frozen at), writes must happen inside
/// `Database.write { }`. Properties without `@Persisted` are never stored.
///
/// Thread safety: as the object that holds it.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    // Layout (relied on by `PropertyAccessor`, which checks it once per property): the index
    // first, at offset 0, so that making an object managed stores one integer without any
    // generic code; then the value.

    /// The property's index in its class once the object is managed; -1 while it is not.
    @usableFromInline
    var managedIndex: Int
    /// The value of an unmanaged object (what it was given, or its default). Kept, but no
    /// longer read, once the object is managed.
    @usableFromInline
    var value: Value
    /// Declared options, read once per class when the schema is built.
    @usableFromInline
    let options: PersistedOptions

    @usableFromInline
    init(value: Value, options: PersistedOptions) {
        managedIndex = -1
        self.value = value
        self.options = options
    }

    /// Not available: `@Persisted` works only on `Object` and `EmbeddedObject` subclasses.
    @available(*, unavailable, message: "@Persisted can only be used on Object and EmbeddedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        // swiftlint:disable:next unused_setter_value
        set { fatalError() }
    }

    /// A property with its type's default value (`0`, `""`, `nil`, an empty list, a new
    /// `ObjectId`…).
    @inlinable
    public init() {
        self.init(value: Value._strataDefault(), options: PersistedOptions())
    }

    /// A property with a default value.
    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, options: PersistedOptions())
    }

    /// The object's property, read or written through the object's database once it is managed.
    ///
    /// Always inlined into the model's accessors, where the key paths are literals the compiler
    /// turns into direct field accesses; the managed paths are calls specialized for `Value`.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            let index = object[keyPath: storageKeyPath].managedIndex
            guard index >= 0 else { return object[keyPath: storageKeyPath].value }
            return managedValue(of: object, index: index)
        }
        set {
            // An unmanaged object (the common case while building objects to add) stores the
            // value in place; a managed one has its property index here (see `Database.attach`).
            let index = object[keyPath: storageKeyPath].managedIndex
            guard index >= 0 else {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            object._strataState.unsafelyUnwrapped.write(index, newValue)
        }
    }

    /// Reads property `index` of a managed object.
    @inlinable
    static func managedValue(of object: ObjectBase, index: Int) -> Value {
        let state = object._strataState.unsafelyUnwrapped
        // Scalars and links: the stored field converts here, specialized for Value.
        if let field = state.plainField(index) { return Value._strataRead(field, state.context) }
        return state.read(index, as: Value.self)
    }

}

/// Options of a `@Persisted` declaration.
@usableFromInline
struct PersistedOptions: Sendable {
    @usableFromInline var primaryKey = false
    @usableFromInline var indexed = false

    @usableFromInline
    init(primaryKey: Bool = false, indexed: Bool = false) {
        self.primaryKey = primaryKey
        self.indexed = indexed
    }
}

/// The types that may be a primary key: Int, String, ObjectId, UUID, and their optionals.
public protocol _PrimaryKey: _Persistable {}
extension Int: _PrimaryKey {}
extension String: _PrimaryKey {}
extension ObjectId: _PrimaryKey {}
extension Foundation.UUID: _PrimaryKey {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey, Wrapped: _PersistableOptional {}

/// The types that may carry a secondary index: every integer width, Bool, String, ObjectId,
/// UUID, Date, `AnyValue`, and their optionals.
public protocol _Indexable: _Persistable {}
extension Int: _Indexable {}
extension Int8: _Indexable {}
extension Int16: _Indexable {}
extension Int32: _Indexable {}
extension Int64: _Indexable {}
extension AnyValue: _Indexable {}
extension Bool: _Indexable {}
extension String: _Indexable {}
extension ObjectId: _Indexable {}
extension Foundation.UUID: _Indexable {}
extension Foundation.Date: _Indexable {}
extension Optional: _Indexable where Wrapped: _Indexable, Wrapped: _PersistableOptional {}

extension Persisted where Value: _PrimaryKey {
    /// A property that is (or, with `false`, is not) the class's primary key: unique, set
    /// before the object is added, never changed after.
    public init(primaryKey: Bool) {
        self.init(value: Value._strataDefault(), options: PersistedOptions(primaryKey: primaryKey))
    }

    /// A primary-key property with a default value.
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, options: PersistedOptions(primaryKey: primaryKey))
    }
}

extension Persisted where Value: _Indexable {
    /// A property with (or, with `false`, without) a secondary index, which equality, `IN` and
    /// range queries (`<`, `<=`, `>`, `>=`, `BETWEEN`, bounds joined by `&&`) use.
    public init(indexed: Bool) {
        self.init(value: Value._strataDefault(), options: PersistedOptions(indexed: indexed))
    }

    /// An indexed property with a default value.
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, options: PersistedOptions(indexed: indexed))
    }
}

import Foundation
