import Foundation
import StrataStorage

/// The base class of stored model classes.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var name: String
/// }
/// ```
///
/// An object starts unmanaged (a plain Swift object); ``Database/add(_:update:)-(Object,_)`` makes it
/// managed, and from then on its `@Persisted` properties read and write the database.
///
/// Thread safety: an unmanaged or live object is used by one thread at a time; a frozen object
/// is immutable and may be read from any thread.
open class Object: ObjectBase {
    /// Makes an unmanaged object with every property at its default.
    public required init() {}

    /// An immutable copy of this managed object as of the latest commit, safe to use from any
    /// thread. The result is `sending`: a new object no one else refers to, which may be handed
    /// to another task or thread (`Task.detached { frozen.name }`).
    /// - Precondition: the object is managed and valid.
    public func freeze() -> sending Self {
        guard let state = _strataState else { preconditionFailure("\(Self.className()): only a managed object can be frozen") }
        let frozen = state.database.freeze()
        guard let copy = frozen.frozenCopy(of: state.key, schema: state.schema, as: Self.self) else {
            preconditionFailure("\(Self.className()): the object has been deleted or invalidated")
        }
        return copy
    }

    /// A live copy of this frozen object, or nil when it no longer exists.
    public func thaw() -> Self? {
        guard let state = _strataState else { return self }
        guard state.database.isFrozen else { return self }
        return state.database.thaw().object(for: state.key, schema: state.schema) as? Self
    }
}

/// A model class whose objects live inside one parent object, are deleted with it, and have no
/// primary key. Declare one as you would an ``Object`` subclass.
///
/// Thread safety: as its parent's.
///
/// A managed embedded object has an identity of its own, as in Realm: a reference to one follows
/// it when the list around it changes, and is invalidated when it is removed from its parent,
/// replaced by another object, or deleted with its parent. Storing an unmanaged embedded object
/// (adding its parent, or setting it on a managed parent inside a write) makes it managed.
open class EmbeddedObject: ObjectBase {
    /// Makes an unmanaged embedded object with every property at its default.
    public required init() {}

    /// An immutable view of this managed embedded object as of the latest commit, safe to use
    /// from any thread (see ``Object/freeze()``).
    /// - Precondition: the object is managed and valid.
    public func freeze() -> sending Self {
        guard let state = _strataState else { preconditionFailure("\(Self.className()): only a managed object can be frozen") }
        let frozen = state.database.freeze()
        guard let copy = frozen.frozenCopy(ofEmbedded: state.path, as: Self.self) else {
            preconditionFailure("\(Self.className()): the object has been deleted or invalidated")
        }
        return copy
    }

    /// A live view of this frozen embedded object, or nil when it no longer exists (itself
    /// when it is live or unmanaged).
    public func thaw() -> Self? {
        guard let state = _strataState, state.database.isFrozen else { return self }
        guard let live = state.path.state(in: state.database.thaw()) else { return nil }
        let object = Self()
        live.database.attach(object, state: live)
        return object
    }
}

/// Schemas of classes built outside a database (for `init(value:)`), once per class.
enum SchemaCache {
    private static let cache = Locked<[ObjectIdentifier: ObjectSchema]>([:])

    static func schema(for type: ObjectBase.Type) -> ObjectSchema? {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) { return cached }
        return try? checkedSchema(for: type)
    }

    /// The class's schema, or the error that says why it cannot be stored as declared.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema`.
    static func checkedSchema(for type: ObjectBase.Type) throws -> ObjectSchema {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) { return cached }
        let schema = try ObjectSchema(type)
        cache.withLock { $0[ObjectIdentifier(type)] = schema }
        return schema
    }
}

extension Object: _PersistableOptional {
    /// A link to an object of this class.
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.object(className: className())) }
    public static func _strataDefault() -> Self { Self() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self {
        _strataReadOptional(value, context) ?? Self()
    }
    /// A linked object decoded nested, or from its bare primary key (a reference, see
    /// `ObjectBase+Codable.swift`).
    public static func _strataDecode(from decoder: any Decoder) throws -> Self {
        let object = Self()
        if (try? decoder.container(keyedBy: CodingName.self)) != nil {
            try object.decodeStoredProperties(from: decoder)
            return object
        }
        guard let schema = SchemaCache.schema(for: self), let primaryKey = schema.primaryKey else {
            throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a nested \(className())"))
        }
        try primaryKey.accessor.decodeUnmanaged(object, from: decoder)
        object.isPrimaryKeyReference = true
        return object
    }

    /// The linked object, or nil when the link is unset or its target no longer exists.
    public static func _strataReadOptional(_ value: _FieldValue, _ context: Database?) -> Self? {
        guard case .link(let key) = value, let context, let schema = context.schemas.byClassID[key.classID] else {
            return nil
        }
        return context.object(for: key, schema: schema) as? Self
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        guard let context else {
            throw StrataError(.invalidValue, "\(Self.className()): a link can only be stored through a database")
        }
        return .link(try context.addLinkedObject(self))
    }

    /// An object as is, or a new unmanaged one from a dictionary or array of its property values.
    public static func _strataConvert(_ value: Any) throws -> Self {
        if let object = value as? Self { return object }
        return try unmanaged(converting: value)
    }
}
