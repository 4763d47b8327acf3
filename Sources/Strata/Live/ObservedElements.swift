import StrataStorage

/// What an observed collection holds at one version, as its change notifications compare it:
/// each element's identity in collection order, and each identity's observed stored values.
///
/// - An object (a link) is known by its key; its observed values are the observed properties of
///   its record (links followed as the key paths say).
/// - An embedded object is known by its identity among its parent's embedded objects (by its
///   position when it was stored without one); its observed values are its own fields.
/// - A value is known by its stored form, so two equal values are the same element; a value
///   has no observed values, and a value replaced in place (`list[2] = 7`) shows as a
///   modification at its position (see `CollectionChangeSet.between(_:_:modified:pairing:)`).
struct ObservedElements {
    enum Key: Hashable {
        case object(ObjectKey)
        case embedded(UInt64)
        case embeddedAt(Int)
        case value(FieldValue)
        case missing
    }

    var keys: [Key] = []
    var values: [Key: [FieldValue]] = [:]
    /// For a map: the key of each element, aligned with `keys`.
    var mapKeys: [String] = []
    /// Whether elements are plain values (replacements pair up as modifications).
    var holdsValues = false
    /// Objects counted as modified besides those whose observed values changed (those linking
    /// to a changed object: `LinkedChanges`).
    var alsoModified: Set<Key> = []

    /// The elements of a stored list, set or map field of `property`, observed as `observed` says
    /// (nil for values, which have no properties).
    static func stored(
        _ field: FieldValue, property: PropertySchema, observed: ObservedProperties?, in database: Database
    ) -> ObservedElements {
        let elements: [FieldValue]
        switch field {
        case .list(let stored), .set(let stored): elements = stored
        default: elements = []
        }
        var result = ObservedElements()
        result.holdsValues = observed == nil
        if case .map(let entries) = field {
            for (position, entry) in entries.enumerated() {
                result.mapKeys.append(entry.key)
                result.keys.append(result.add(entry.value, position: position, property: property, observed: observed, in: database))
            }
            return result
        }
        for (position, element) in elements.enumerated() {
            let key = result.add(element, position: position, property: property, observed: observed, in: database)
            result.keys.append(key)
        }
        return result
    }

    /// The objects `elements` in their order (a `LinkingObjects`' or a `Results`' keys).
    static func objects(_ keys: [ObjectKey], schema: ObjectSchema, observed: ObservedProperties, in database: Database) -> ObservedElements {
        var result = ObservedElements()
        for key in keys {
            let element = Key.object(key)
            result.keys.append(element)
            if result.values[element] == nil {
                result.values[element] = database.loadFields(key, schema: schema).map { observed.project($0, in: database) }
            }
        }
        return result
    }

    /// Records one stored element's observed values and returns its identity.
    mutating func add(
        _ element: FieldValue, position: Int, property: PropertySchema, observed: ObservedProperties?, in database: Database
    ) -> Key {
        guard let observed else { return .value(element) }
        switch element {
        case .link(let key):
            let identity = Key.object(key)
            if values[identity] == nil, let schema = database.schemas.byClassID[key.classID] {
                values[identity] = database.loadFields(key, schema: schema).map { observed.project($0, in: database) }
            }
            return identity
        case .embedded(_, let id, let fields):
            let identity = id == 0 ? Key.embeddedAt(position) : Key.embedded(id)
            if let schema = property.embeddedSchema {
                values[identity] = observed.project(schema.positionalFields(fields), in: database)
            }
            return identity
        case .null:
            return .missing
        default:
            return .value(element)
        }
    }

    /// The identities whose observed values differ from those in `old` (elements in both).
    func modified(since old: ObservedElements) -> Set<Key> {
        var modified = alsoModified
        for (key, value) in values where old.values[key].map({ $0 != value }) ?? false { modified.insert(key) }
        return modified
    }
}
