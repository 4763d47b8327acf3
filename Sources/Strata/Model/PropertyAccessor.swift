// Reaching a `@Persisted` property of an object without key paths.
//
// Linux has no Objective-C runtime to ask for ivars, and key paths cannot be made from names.
// The Swift runtime's field reflection (`_forEachField`, the machinery behind `Mirror`) lists a
// class's stored properties with their byte offsets once per class; an accessor then reads and
// writes the property's `Persisted<Value>` storage at that offset in any instance. This runs once
// per property per add, never per property read of a managed object (those
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
    /// The byte offset of the property's `Persisted` in an instance; its managed index is the
    /// first word there.
    var offset: Int { get }
    /// The declared options, read from a prototype.
    func options(of object: ObjectBase) -> PersistedOptions
    /// The value an unmanaged object holds, converted for storage.
    func storedValue(of object: ObjectBase, context: Database?) throws -> FieldValue
    /// Writes the value an object holds as its field in a record: the bytes of
    /// `writer.value(try storedValue(of: object, context: context))`, written straight from
    /// the property's storage for a scalar of an unmanaged object.
    func writeField(of object: ObjectBase, to writer: inout ByteWriter<GrowingByteSink>, context: Database?) throws
    /// Replaces the value a managed object's property kept from before it was managed by the
    /// type's default, so that the objects it referred to are not kept alive by it.
    func releaseUnmanagedValue(_ object: ObjectBase)
    /// Gives the property a value of its own again (the object stops being managed).
    func markUnmanaged(_ object: ObjectBase, value: FieldValue, context: Database?)
    /// Sets an unmanaged property from an untyped value, converted as `init(value:)` converts
    /// (`Persistable+Conversion.swift`).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when the value does not convert.
    func setUnmanaged(_ object: ObjectBase, converting value: Any) throws
    /// An untyped value converted to the property's type, in stored form (unmanaged objects
    /// it holds are added through `context`).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when the value does not convert or cannot be
    ///   stored.
    func fieldValue(converting value: Any, context: Database?) throws -> FieldValue
    /// The property's value as `Any` (through the object's state when managed).
    func value(of object: ObjectBase) -> Any
    /// The stored form of the type's default, for records written before the property existed.
    func defaultField() -> FieldValue
    /// For a `LinkingObjects` property: the origin property named in its declaration.
    func linkingPropertyName(of object: ObjectBase) -> String?
    /// Decodes the property's value into an unmanaged object.
    func decodeUnmanaged(_ object: ObjectBase, from decoder: any Decoder) throws
    /// The Swift value of a stored plain field (not a collection or an embedded object), read
    /// through `context` (a link resolves there): what change notifications report.
    func value(of field: FieldValue, context: Database?) -> Any
}

/// (Three words at most, so that an accessor is held inline in an existential: copying one
/// out of `ObjectSchema.accessors` then allocates and retains nothing.)
struct PropertyAccessor<Value: _Persistable>: PropertyAccessing {
    /// The offset of the property's `Persisted<Value>` in an instance.
    private let storedOffset: Int32
    /// The offset of the value inside `Persisted<Value>`, found once here so that `storedValue`
    /// needs no metadata of `Persisted<Value>`. (Making an object managed stores the index at
    /// the wrapper's offset 0: see `Database.attach(_:state:)`.)
    private let valueOffset: Int32

    /// `Value` as a scalar that writes itself to a record, or nil.
    private let scalar: (any ScalarRecordValue.Type)?

    init(offset: Int) {
        storedOffset = Int32(offset)
        precondition(MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.managedIndex) == 0,
                     "Persisted's layout changed: managedIndex must come first")
        valueOffset = Int32(MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.value)!)
        scalar = Value.self as? any ScalarRecordValue.Type
    }

    /// The offset of the property's `Persisted<Value>` in an instance.
    var offset: Int { Int(storedOffset) }

    @inline(__always)
    private func base(_ object: ObjectBase) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + Int(storedOffset)
    }

    @inline(__always)
    private func storage(_ object: ObjectBase) -> UnsafeMutablePointer<Persisted<Value>> {
        base(object).assumingMemoryBound(to: Persisted<Value>.self)
    }

    @inline(__always)
    private func managedIndex(_ object: ObjectBase) -> Int { base(object).load(as: Int.self) }

    @inline(__always)
    private func value(_ object: ObjectBase) -> UnsafeMutablePointer<Value> {
        (base(object) + Int(valueOffset)).assumingMemoryBound(to: Value.self)
    }

    func options(of object: ObjectBase) -> PersistedOptions { storage(object).pointee.options }

    func storedValue(of object: ObjectBase, context: Database?) throws -> FieldValue {
        let index = managedIndex(object)
        if index < 0 { return try value(object).pointee._strataWrite(context) }
        return try object._strataState!.read(index, as: Value.self)._strataWrite(context)
    }

    func writeField(of object: ObjectBase, to writer: inout ByteWriter<GrowingByteSink>, context: Database?) throws {
        if let scalar, managedIndex(object) < 0 {
            try scalar.writeField(storedAt: UnsafeRawPointer(value(object)), to: &writer)
        } else {
            let field = try storedValue(of: object, context: context)
            try field.checkNesting()
            writer.value(field)
        }
    }

    func releaseUnmanagedValue(_ object: ObjectBase) {
        value(object).pointee = Value._strataDefault()
    }

    func markUnmanaged(_ object: ObjectBase, value: FieldValue, context: Database?) {
        self.value(object).pointee = Value._strataRead(value, context)
        base(object).storeBytes(of: -1, as: Int.self)
    }

    func setUnmanaged(_ object: ObjectBase, converting value: Any) throws {
        self.value(object).pointee = try Value._strataConvert(value)
        base(object).storeBytes(of: -1, as: Int.self)
    }

    func fieldValue(converting value: Any, context: Database?) throws -> FieldValue {
        try Value._strataConvert(value)._strataWrite(context)
    }

    func decodeUnmanaged(_ object: ObjectBase, from decoder: any Decoder) throws {
        value(object).pointee = try Value._strataDecode(from: decoder)
        base(object).storeBytes(of: -1, as: Int.self)
    }

    func linkingPropertyName(of object: ObjectBase) -> String? {
        guard managedIndex(object) < 0 else { return nil }
        return (value(object).pointee as? any LinkingObjectsProperty)?.propertyName
    }

    func defaultField() -> FieldValue {
        (try? Value._strataDefault()._strataWrite(nil)) ?? .null
    }

    func value(of field: FieldValue, context: Database?) -> Any {
        Value._strataRead(field, context)
    }

    func value(of object: ObjectBase) -> Any {
        let index = managedIndex(object)
        if index < 0 { return value(object).pointee }
        return object._strataState!.read(index, as: Value.self)
    }
}

/// The face of `LinkingObjects` the schema reads.
protocol LinkingObjectsProperty {
    var propertyName: String { get }
    static var originClassName: String { get }
}
