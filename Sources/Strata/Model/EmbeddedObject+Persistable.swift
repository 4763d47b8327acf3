import StrataStorage

extension EmbeddedObject: _PersistableOptional {
    /// A (to-one or list) property that owns an embedded object of this class.
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.object(className: className())) }
    public static func _strataDefault() -> Self { Self() }

    /// An unmanaged copy of a stored embedded object.
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self {
        let object = Self()
        guard case .embedded(let classID, _, let stored) = value, let context,
              let schema = context.schemas.byClassID[classID]
        else { return object }
        for (property, field) in zip(schema.properties, schema.positionalFields(stored)) {
            property.accessor.markUnmanaged(object, value: field, context: context)
        }
        return object
    }

    /// An unmanaged embedded object decoded from a nested container.
    public static func _strataDecode(from decoder: any Decoder) throws -> Self {
        let object = Self()
        try object.decodeStoredProperties(from: decoder)
        return object
    }

    /// An unmanaged object as is; a copy of a managed one (it has a parent already); a new
    /// unmanaged one from a dictionary or array of its property values.
    public static func _strataConvert(_ value: Any) throws -> Self {
        if let object = value as? Self, !object.isManaged { return object }
        return try unmanaged(converting: value)
    }

    /// The object's fields, stored inline in its parent.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when the object already belongs to a parent,
    ///   or was made by ``ObjectBase/init(value:)`` from a value that does not fit.
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        if let valueError { throw valueError }
        guard let context, let schema = context.schemas.schema(for: type(of: self)) else {
            throw StrataError(.wrongDatabase, "\(Self.className()) is not one of the database's objectTypes")
        }
        if _strataState != nil {
            throw StrataError(
                .invalidValue,
                "this \(Self.className()) already belongs to another object; an embedded object has exactly one parent — assign a new \(Self.className())() instead")
        }
        var fields: [FieldValue] = []
        for property in schema.properties {
            fields.append(try property.accessor.storedValue(of: self, context: context))
        }
        return .embedded(classID: schema.classID, id: context.storingEmbedded(self), fields: schema.storedFields(fields))
    }
}
