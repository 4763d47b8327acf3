import Foundation

// Objects made from untyped values: `Dog(value: ["name": "Rex", "age": 3])`, as Realm's
// `init(value:)`. The value conversions are in Persistable+Conversion.swift.

extension ObjectBase {
    /// Makes an unmanaged object from `value`: a `[String: Any]` dictionary of property values
    /// by name, an `[Any]` array of them in property order (the `@Persisted` properties in
    /// declaration order, superclass first, `LinkingObjects` left out), or another object of
    /// this class whose properties are copied. Properties not given keep their defaults.
    ///
    /// ```swift
    /// let rex = Dog(value: ["name": "Rex", "age": 3])
    /// let home = Address(value: ["1 Main St", "Lyon"])
    /// let ann = Person(value: ["name": "Ann", "dogs": [rex, ["name": "Fido"]], "address": ["city": "Nice"]])
    /// ```
    ///
    /// Property values convert as Realm's do: an integer for a property of any integer width
    /// when it is in range, and for `Float`, `Double` and `Decimal128`; nil or `NSNull` for an
    /// optional; a raw value for a `PersistableEnum`; an object, or a nested dictionary or
    /// array, for a link or an embedded object; any sequence for a list or a set, a
    /// dictionary for a map.
    ///
    /// Unlike Realm, which throws an Objective-C exception, a value that does not fit (an
    /// unknown property name, a value of the wrong type or out of range, more array elements
    /// than properties) does not stop the program: this initializer cannot throw, so the
    /// object keeps what went wrong, and ``Database/add(_:update:)-(Object,_)`` throws it as
    /// ``/StrataStorage/StrataError`` `.invalidValue` naming the class and property.
    /// ``Database/create(_:value:update:)`` throws it directly.
    ///
    /// Thread safety: the new object is unmanaged, used by one thread at a time.
    /// - Complexity: O(n) in the size of `value`, nested values included.
    public convenience init(value: Any) {
        self.init()
        do {
            try setProperties(from: value)
        } catch let error as StrataError {
            valueInput = ValueInput(error: error, givenProperties: [])
        } catch {
            valueInput = ValueInput(error: StrataError(.invalidValue, "\(Self.className()): \(error)"), givenProperties: [])
        }
    }

    /// Sets the properties `value` gives (see ``init(value:)``) on this unmanaged object.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` naming the class and property, `.invalidSchema`
    ///   when the class cannot be stored as declared.
    func setProperties(from value: Any, schema: ObjectSchema? = nil) throws {
        let schema = try schema ?? SchemaCache.checkedSchema(for: type(of: self))
        let named = try type(of: self).namedValues(value, schema: schema)
        for (property, given) in named {
            do {
                try property.accessor.setUnmanaged(self, converting: given)
            } catch {
                throw StrataError.inContext("\(schema.className).\(property.name)", error)
            }
        }
        valueInput = ValueInput(error: nil, givenProperties: named.map(\.0.index))
    }

    /// The stored properties an untyped object value gives, in property order, each with its
    /// value (see ``init(value:)`` for the forms).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` for an unknown or computed property name, an
    ///   array longer than the stored properties, or a value of no accepted form;
    ///   `.objectInvalidated` for an object to copy that was deleted.
    static func namedValues(_ value: Any, schema: ObjectSchema) throws -> [(PropertySchema, Any)] {
        let stored = schema.properties.filter(\.isStored)
        if let dictionary = value as? [String: Any] {
            for name in dictionary.keys.sorted() where schema[name]?.isStored != true {
                let why = schema[name] == nil ? "has no @Persisted property '\(name)'" : ".\(name) is a LinkingObjects property, which cannot be set"
                throw StrataError(.invalidValue, "\(schema.className) \(why)")
            }
            return stored.compactMap { property in dictionary[property.name].map { (property, $0) } }
        }
        if let source = value as? Self {
            guard !source.isInvalidated else {
                throw StrataError(.objectInvalidated, "\(schema.className): the object to copy has been deleted or invalidated")
            }
            return stored.map { ($0, $0.accessor.value(of: source)) }
        }
        if !(value is ObjectBase), let elements = convertibleElements(of: value) {
            guard elements.count <= stored.count else {
                throw StrataError(
                    .invalidValue,
                    "\(schema.className): an array of \(elements.count) values for \(stored.count) stored properties")
            }
            return Array(zip(stored, elements))
        }
        throw StrataError(
            .invalidValue,
            "\(schema.className): expected a dictionary of property values, an array of them in property order, or a \(schema.className), got \(describeGiven(value))")
    }

    /// A new unmanaged object of this class made from an untyped value (a link or an embedded
    /// object given as a dictionary or an array).
    static func unmanaged(converting value: Any) throws -> Self {
        let object = Self()
        try object.setProperties(from: value)
        return object
    }
}

extension PropertySchema {
    /// The stored form of an untyped value for this property, converted as
    /// ``ObjectBase/init(value:)`` converts (Persistable+Conversion.swift), without an object
    /// of the class: unmanaged objects the value holds or makes (a link given as a dictionary)
    /// are added through `context`, with the write's update policy for linked objects.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` naming the property (not its class: the
    ///   caller adds it) when the value does not convert or cannot be stored, or when the
    ///   property is a `LinkingObjects`.
    func fieldValue(converting value: Any, context: Database?) throws -> FieldValue {
        guard isStored else {
            throw StrataError(.invalidValue, "\(name): a LinkingObjects property cannot be set")
        }
        do {
            return try accessor.fieldValue(converting: value, context: context)
        } catch {
            throw StrataError.inContext(name, error)
        }
    }
}
