@_spi(Reflection) import Swift
import StrataStorage

/// The stored shape of one model class: its properties in declaration order (superclass
/// properties first), its primary key, and the stable ids the database assigned.
///
/// Built once per class when a database opens; immutable afterwards and `Sendable`.
public final class ObjectSchema: @unchecked Sendable, CustomStringConvertible {
    /// The class name (the Swift name without the module).
    public let className: String
    /// Whether objects of this class are embedded in a parent.
    public let isEmbedded: Bool
    /// The stored properties, in declaration order.
    public let properties: [PropertySchema]
    /// The primary-key property, if the class has one.
    public var primaryKey: PropertySchema? { primaryKeyIndex.map { properties[$0] } }

    let type: ObjectBase.Type
    let primaryKeyIndex: Int?
    let indexByName: [String: Int]
    /// The class's stable id, which is also its keyspace. Assigned by the catalog.
    var classID: UInt32 = 0
    /// The stored properties' ids and indices, in property order: what a record holds. Assigned
    /// by the catalog with the ids.
    var storedFieldLayout: [(id: UInt32, index: Int)] = []
    /// Each property's stable id, in property order (0 for `LinkingObjects`, which are not
    /// stored). Assigned by the catalog.
    var propertyIDs: [UInt32] = []
    /// Property index by stable property id (-1: no current property has that id). Assigned by
    /// the catalog; ids are small, dense numbers.
    var indexByPropertyID: [Int] = []

    /// The index of the property with stable id `id`, or nil when none has it (a property
    /// removed since the record was written).
    @inline(__always)
    func propertyIndex(forID id: UInt32) -> Int? {
        let id = Int(id)
        guard id < indexByPropertyID.count else { return nil }
        let index = indexByPropertyID[id]
        return index >= 0 ? index : nil
    }

    /// A prototype the key-path tracer uses (see `KeyPathTracer`).
    let prototype: ObjectBase

    public var description: String {
        "\(className) { " + properties.map { "\($0.name): \($0.type)" }.joined(separator: ", ") + " }"
    }

    /// Reads a class's stored properties through the runtime's field reflection.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema` naming the class and property.
    init(_ type: ObjectBase.Type) throws {
        self.type = type
        className = type.className()
        isEmbedded = type is EmbeddedObject.Type
        let prototype = type.init()
        self.prototype = prototype

        var found: [(name: String, accessor: any PropertyAccessing, descriptor: TypeDescriptor)] = []
        var unpersisted: (name: String, type: Any.Type)?
        // `_EachFieldOptions.classType` is a mutable static; spell its raw value (1 << 0) instead.
        let complete = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            guard let persisted = fieldType as? any PersistedProperty.Type else {
                if fieldType is any PersistedOnly.Type, unpersisted == nil { unpersisted = (String(cString: name), fieldType) }
                return true
            }
            var label = String(cString: name)
            if label.hasPrefix("_") { label.removeFirst() }
            found.append((label, persisted.makeAccessor(offset: offset), persisted.descriptor))
            return true
        }
        guard complete else {
            throw StrataError(.invalidSchema, "\(className): the Swift runtime could not list its stored properties")
        }
        if let (name, fieldType) = unpersisted {
            throw StrataError(
                .invalidSchema,
                "\(className).\(name): a \(fieldType) declared without @Persisted would not be stored; declare it `@Persisted var \(name): \(fieldType)`")
        }
        let properties = found.enumerated().map { index, field in
            let options = field.accessor.options(of: prototype)
            var descriptor = field.descriptor
            if case .linkingObjects(let origin, _) = descriptor.type {
                let name = field.accessor.linkingPropertyName(of: prototype) ?? ""
                descriptor = TypeDescriptor(.linkingObjects(className: origin, property: name))
            }
            return PropertySchema(
                name: field.name, index: index, type: descriptor, isPrimaryKey: options.primaryKey,
                isIndexed: options.indexed || options.primaryKey, accessor: field.accessor)
        }
        try SchemaRules.check(ClassShape(name: className, isEmbedded: isEmbedded, declaring: properties))
        let primaryKeyIndex = properties.firstIndex(where: \.isPrimaryKey)
        self.properties = properties
        self.primaryKeyIndex = primaryKeyIndex
        indexedProperties = properties.filter { $0.isIndexed && !$0.isPrimaryKey }
        managedIndexOffsets = properties.map(\.accessor.offset)
        accessors = properties.map(\.accessor)
        // As Realm does for a property added to a class: the declared default (read from the
        // prototype), for scalars; links and collections start empty.
        defaultFields = properties.map { property in
            guard !property.mayHoldLinks, !property.bindsToOwner,
                  let declared = try? property.accessor.storedValue(of: prototype, context: nil)
            else { return property.accessor.defaultField() }
            return declared
        }
        mayHoldLinks = properties.contains { $0.mayHoldLinks }
        hasLinksOrIndexes = mayHoldLinks || !indexedProperties.isEmpty
        primaryKeyIsOptional = primaryKeyIndex.map { properties[$0].type.isOptional } ?? false
        indexByName = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0.index) })
    }

    /// Stored `(property id, value)` pairs into fields in property order; missing properties
    /// take their defaults, unknown ids are skipped.
    func positionalFields(_ stored: [FieldValue.Field]) -> [FieldValue] {
        var fields = defaultFields
        for field in stored {
            if let index = propertyIndex(forID: field.id) { fields[index] = field.value }
        }
        return fields
    }

    /// Fields in property order into stored `(property id, value)` pairs.
    func storedFields(_ fields: [FieldValue]) -> [FieldValue.Field] {
        var stored: [FieldValue.Field] = []
        stored.reserveCapacity(storedFieldLayout.count)
        for field in storedFieldLayout {
            stored.append(FieldValue.Field(id: field.id, value: fields[field.index]))
        }
        return stored
    }

    /// Each property's accessor, in property order (reading them from this array does not
    /// touch the `PropertySchema` objects).
    let accessors: [any PropertyAccessing]
    /// Per property, in order: the byte offset in an instance of its `Persisted`'s managed index
    /// (the wrapper's first word), so that making an object managed is a loop of stores.
    let managedIndexOffsets: [Int]
    /// The properties with a secondary index (primary keys excluded: the key is their index).
    let indexedProperties: [PropertySchema]
    /// Each property's default in stored form (its declared default for scalars), for fields a
    /// record does not hold.
    let defaultFields: [FieldValue]
    /// Per property: whether a read converts the stored field directly (not a collection and not
    /// an embedded object). Filled when the schema set is checked.
    var readsPlainField: [Bool] = []
    /// Per property: whether reads of it by objects a walk hands out may make the walk's column
    /// table decode it (see `Database.walkColumns`): a plain property other than `Data` and
    /// `AnyValue`, whose values can be large, so a loop over blobs does not keep them all in
    /// memory. Filled with `readsPlainField`.
    var keepsWalkColumn: [Bool] = []

    /// Whether any property can hold links (so changes must maintain the backlink index).
    let mayHoldLinks: Bool
    /// Whether the primary key (if any) is optional.
    let primaryKeyIsOptional: Bool
    /// Whether a change of an object must also update backlinks or secondary index entries.
    let hasLinksOrIndexes: Bool

    /// The property named `name`, or nil.
    public subscript(name: String) -> PropertySchema? {
        indexByName[name].map { properties[$0] }
    }
}

/// The types that exist only to be stored (`List`, `MutableSet`, `Map`, `LinkingObjects`): one
/// declared without `@Persisted` is a schema error, not a property silently left unstored (as
/// Realm's older `let dogs = List<Dog>()` syntax would have it).
protocol PersistedOnly {}

/// One stored property of a model class.
///
/// Immutable and `Sendable`.
public final class PropertySchema: @unchecked Sendable {
    /// The property's name as declared (without the wrapper's underscore).
    public let name: String
    /// Its position among the class's stored properties.
    public let index: Int
    /// What it holds, with its optionality.
    let type: TypeDescriptor
    /// What it holds.
    public var propertyType: PropertyType { type.type }
    /// Whether `nil` is one of its values.
    public var isOptional: Bool { type.isOptional }
    /// Whether it is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether it has a secondary index (primary keys always do).
    public let isIndexed: Bool
    /// Whether queries may read its secondary index: the database holds the index complete
    /// and in the current format. Set when the catalog is bound; false for a property that is
    /// not indexed, and in a read-only database whose catalog does not record the index as
    /// current (an old format, or an index declared since the last writable open).
    var indexIsUsable = false
    /// The stable id records use for it. Assigned by the catalog.
    public internal(set) var propertyID: UInt32 = 0
    /// For a to-one link to an embedded class: that class's schema. Set when the schema set is
    /// checked. (Unowned: the schema set owns every schema, and schemas refer to each other in
    /// cycles — a class that embeds or links back to itself.)
    unowned(unsafe) var embeddedSchema: ObjectSchema?
    /// For the origin side of `LinkingObjects`: the origin class and property. Set when the
    /// schema set is checked.
    var linkingOrigin: LinkingOrigin?

    /// The class and property a `LinkingObjects` property is the inverse of. (Unowned, as
    /// `embeddedSchema`: the origin may be the property's own class.)
    struct LinkingOrigin {
        unowned(unsafe) let schema: ObjectSchema
        unowned(unsafe) let property: PropertySchema
    }
    /// Whether the property's values can contain links (to-one, collections of objects, mixed,
    /// embedded objects).
    var mayHoldLinks: Bool { Self.mayHoldLinks(type) }

    private static func mayHoldLinks(_ descriptor: TypeDescriptor) -> Bool {
        switch descriptor.type {
        case .object, .any: return true
        case .list(let element), .set(let element), .map(let element): return mayHoldLinks(element)
        default: return false
        }
    }

    /// Whether reads get a view bound to the owning object (collections, `LinkingObjects`).
    /// Stored: the property read path checks it on every read.
    let bindsToOwner: Bool

    let accessor: any PropertyAccessing

    init(name: String, index: Int, type: TypeDescriptor, isPrimaryKey: Bool, isIndexed: Bool, accessor: any PropertyAccessing) {
        self.name = name
        self.index = index
        self.type = type
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.accessor = accessor
        switch type.type {
        case .list, .set, .map, .linkingObjects: bindsToOwner = true
        default: bindsToOwner = false
        }
    }

    /// The value this property's index entries are made from when it holds `value`: a mixed
    /// property's numbers as the Double they compare as (`IndexKeyEncoding.mixedValue`).
    func indexedValue(_ value: FieldValue) -> FieldValue {
        type.type == .any ? IndexKeyEncoding.mixedValue(value) : value
    }

    /// Whether the property is stored in the object's record (LinkingObjects are computed).
    var isStored: Bool {
        if case .linkingObjects = type.type { return false }
        return true
    }
}

extension ObjectSchema: RecordLayout {}
