import StrataStorage

// The schema a database holds, read from its catalog alone (no Swift classes): what `strata
// schema`, `inspect`, `export` and `import` work from. `@_spi(Tooling)`: for the tool, not API.

/// The classes of a database's stored schema, in catalog order.
@_spi(Tooling) public struct StoredSchema: Sendable {
    /// Every class, embedded ones included, in the order the catalog lists them.
    public let classes: [StoredClass]
    let catalog: Catalog

    /// The schema stored in `snapshot`; no classes when it holds no catalog.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the catalog does not decode or names a type
    ///   that is not one.
    public static func load(from snapshot: Snapshot) throws -> StoredSchema {
        try StoredSchema(catalog: Catalog.load(from: snapshot))
    }

    init(catalog: Catalog) throws {
        self.catalog = catalog
        classes = try catalog.classes.map(StoredClass.init)
    }

    /// The class named `name`.
    public func storedClass(named name: String) -> StoredClass? {
        classes.first { $0.name == name }
    }

    func storedClass(id: UInt32) -> StoredClass? {
        classes.first { $0.id == id }
    }

    /// The number of objects of each class that is not embedded, in catalog order.
    public func objectCounts(in snapshot: Snapshot) -> [(className: String, count: Int)] {
        classes.filter { !$0.isEmbedded }.map { ($0.name, snapshot.count(in: Keyspace($0.id))) }
    }
}

/// One class of a ``StoredSchema``.
@_spi(Tooling) public struct StoredClass: Sendable {
    /// The class name, as `className()` gives it.
    public let name: String
    /// Its id, which is also the keyspace of its objects.
    public let id: UInt32
    /// Whether it is an `EmbeddedObject` class (its objects live inside their parents' records).
    public let isEmbedded: Bool
    /// The stored properties, in catalog order (`LinkingObjects` are not stored).
    public let properties: [StoredProperty]

    /// The primary-key property, if the class has one.
    public var primaryKey: StoredProperty? { properties.first(where: \.isPrimaryKey) }

    /// The property named `name`.
    public func property(named name: String) -> StoredProperty? {
        properties.first { $0.name == name }
    }

    init(_ entry: Catalog.ClassEntry) throws {
        let shape = try ClassShape(entry)
        name = entry.name
        id = entry.id
        isEmbedded = entry.isEmbedded
        properties = zip(entry.properties, shape.properties).map { stored, shape in
            StoredProperty(name: stored.name, id: stored.id, type: shape.type, isPrimaryKey: stored.isPrimaryKey, isIndexed: stored.isIndexed)
        }
    }
}

/// One stored property of a ``StoredClass``.
@_spi(Tooling) public struct StoredProperty: Sendable {
    /// The property name.
    public let name: String
    /// Its stable id, which its fields carry in object records.
    public let id: UInt32
    let type: TypeDescriptor
    /// Whether it is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether the catalog records a complete secondary index of it.
    public let isIndexed: Bool

    /// The type as Swift spells it: `Int`, `String?`, `List<Dog>`, `Map<String, Int?>`.
    public var typeName: String { type.description }

    /// Whether nil is a value of the property.
    public var isOptional: Bool { type.isOptional }

    /// The class a link (or a collection of links) names, if the property holds links or
    /// embedded objects.
    public var linkedClassName: String? { type.linkedClassName }
}

extension TypeDescriptor {
    /// The class an object property, or a collection of objects, names.
    var linkedClassName: String? {
        switch type {
        case .object(let name): return name
        case .list(let element), .set(let element), .map(let element): return element.linkedClassName
        default: return nil
        }
    }
}
