// Reaching a `@Persisted` property of an object without key paths.
//
// Linux has no Objective-C runtime to ask for ivars, and key paths cannot be made from names.
// The Swift runtime's field reflection (`_forEachField`, the machinery behind `Mirror`) lists a
// class's stored properties with their byte offsets once per class; an accessor then reads and
// writes the property's `Persisted<Value>` storage at that offset in any instance. This runs once
// per property per add or materialization, never per property read of a managed object (those
// go through `Persisted`'s `_enclosingInstance` subscript).
//
// Thread safety: accessors are immutable; the object they touch must not be used by another
// thread at the same time.

/// The type-erased face of a `Persisted<Value>` type.
protocol PersistedProperty {
    static var descriptor: TypeDescriptor { get }
    static func makeAccessor(offset: Int) -> any PropertyAccessing
}

extension Persisted: PersistedProperty {
    static var descriptor: TypeDescriptor { Value._strataType }
    static func makeAccessor(offset: Int) -> any PropertyAccessing {
        PropertyAccessor<Value>(offset: offset)
    }
}

/// Reads and writes one property of any instance of one class.
protocol PropertyAccessing: Sendable {
    /// The declared options, read from a prototype.
    func options(of object: ObjectBase) -> PersistedOptions
    /// The value an unmanaged object holds, converted for storage.
    func storedValue(of object: ObjectBase, context: Database?) throws -> FieldValue
    /// Points the property at its database: reads and writes go through the object's state.
    func markManaged(_ object: ObjectBase, index: Int)
    /// Gives the property a value of its own again (the object stops being managed).
    func markUnmanaged(_ object: ObjectBase, value: FieldValue, context: Database?)
    /// Sets an unmanaged property from an untyped value; false when the type does not match.
    func setUnmanaged(_ object: ObjectBase, any value: Any) -> Bool
    /// The property's value as `Any` (through the object's state when managed).
    func value(of object: ObjectBase) -> Any
    /// The stored form of the type's default, for records written before the property existed.
    func defaultField() -> FieldValue
    /// For a `LinkingObjects` property: the origin property named in its declaration.
    func linkingPropertyName(of object: ObjectBase) -> String?
    /// Decodes the property's value into an unmanaged object.
    func decodeUnmanaged(_ object: ObjectBase, from decoder: any Decoder) throws
}

struct PropertyAccessor<Value: _Persistable>: PropertyAccessing {
    let offset: Int

    @inline(__always)
    private func storage(_ object: ObjectBase) -> UnsafeMutablePointer<Persisted<Value>> {
        (UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset)
            .assumingMemoryBound(to: Persisted<Value>.self)
    }

    func options(of object: ObjectBase) -> PersistedOptions { storage(object).pointee.options }

    func storedValue(of object: ObjectBase, context: Database?) throws -> FieldValue {
        switch storage(object).pointee.storage {
        case .unmanaged(let value): return try value._strataWrite(context)
        case .managed(let index): return try object._strataState!.read(index, as: Value.self)._strataWrite(context)
        }
    }

    func markManaged(_ object: ObjectBase, index: Int) {
        storage(object).pointee.storage = .managed(index: index)
    }

    func markUnmanaged(_ object: ObjectBase, value: FieldValue, context: Database?) {
        storage(object).pointee.storage = .unmanaged(Value._strataRead(value, context))
    }

    func setUnmanaged(_ object: ObjectBase, any value: Any) -> Bool {
        guard let typed = value as? Value else { return false }
        storage(object).pointee.storage = .unmanaged(typed)
        return true
    }

    func decodeUnmanaged(_ object: ObjectBase, from decoder: any Decoder) throws {
        storage(object).pointee.storage = .unmanaged(try Value._strataDecode(from: decoder))
    }

    func linkingPropertyName(of object: ObjectBase) -> String? {
        guard case .unmanaged(let value) = storage(object).pointee.storage else { return nil }
        return (value as? any LinkingObjectsProperty)?.propertyName
    }

    func defaultField() -> FieldValue {
        (try? Value._strataDefault()._strataWrite(nil)) ?? .null
    }

    func value(of object: ObjectBase) -> Any {
        switch storage(object).pointee.storage {
        case .unmanaged(let value): return value
        case .managed(let index): return object._strataState!.read(index, as: Value.self)
        }
    }
}
