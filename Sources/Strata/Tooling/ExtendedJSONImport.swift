import StrataStorage

// `strata import`: Extended JSON documents (one per line, one file per class, as `strata export`
// writes them) into one write batch for a store: the merged catalog, each object's record and
// the backlink records of every object they link to (merged with those stored). It writes no
// secondary-index entries; the catalog says so (StoredSchema+Definition.swift), and the next
// open that declares an index rebuilds it.

/// Builds the batch that imports exported documents into a store.
///
/// `@_spi(Tooling)`: for the `strata` tool, not API.
@_spi(Tooling) public struct ExtendedJSONImport {
    /// The schema after the import: the store's, with the definition's classes added.
    public let schema: StoredSchema
    private let snapshot: Snapshot
    private var records: [(ObjectKey, [UInt8])] = []
    private var added: Set<ObjectKey> = []
    private var backlinks: [ObjectKey: Set<Backlink>] = [:]

    /// Starts an import into the store `snapshot` is of, with the classes of `definition`
    /// (``StoredSchema/definition()``'s shape).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` for a malformed definition, `.invalidSchema`
    ///   for a class no model could declare (a `mixed` primary key, a list of lists, a set of
    ///   embedded objects, a required link: the rules of `SchemaRules`), `.schemaMismatch` when
    ///   it contradicts the stored schema, `.corruption` when the stored catalog is damaged.
    public init(definition: JSONValue, into snapshot: Snapshot) throws {
        self.snapshot = snapshot
        schema = try StoredSchema(catalog: StoredSchema.merging(definition, into: Catalog.load(from: snapshot)))
    }

    /// Checks `definition` alone, as an import into an empty database would: what an import
    /// can check before it creates or opens anything.
    /// - Throws: what ``init(definition:into:)`` throws for the definition.
    public static func check(definition: JSONValue) throws {
        _ = try StoredSchema(catalog: StoredSchema.merging(definition, into: Catalog()))
    }

    /// The number of objects added so far.
    public var count: Int { records.count }

    /// Adds one document of class `className`.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when it does not fit the class;
    ///   `.primaryKeyExists` when its object is stored or added already.
    public mutating func add(_ document: JSONValue, className: String) throws {
        guard let storedClass = schema.storedClass(named: className), !storedClass.isEmbedded else {
            throw StrataError(.invalidValue, "the schema has no class \(className) that is not embedded")
        }
        var identity: UInt64 = 0
        let fields = try schema.fields(of: document, by: storedClass, identity: &identity)
        for field in fields { try field.value.checkNesting() }
        let key = try objectKey(of: document, fields: fields, storedClass: storedClass)
        guard !added.contains(key), !snapshot.contains(key.key, in: Keyspace(key.classID)) else {
            throw StrataError(.primaryKeyExists, "\(className) \(document["_id"]?.rendered() ?? "") is already stored or imported")
        }
        added.insert(key)
        records.append((key, RecordCodec.encode(storedFields: fields)))
        for field in fields {
            var targets: [ObjectKey] = []
            Database.collectLinks(field.value, into: &targets)
            for target in targets { backlinks[target, default: []].insert(Backlink(source: key, propertyID: field.id)) }
        }
    }

    /// The key: the primary key's field, or the document's `_id` (a generated ObjectId).
    private func objectKey(of document: JSONValue, fields: [FieldValue.Field], storedClass: StoredClass) throws -> ObjectKey {
        if let primaryKey = storedClass.primaryKey, let field = fields.first(where: { $0.id == primaryKey.id }) {
            guard let key = PrimaryKeyEncoding.key(for: field.value, optional: primaryKey.isOptional) else {
                throw StrataError(.invalidValue, "\(storedClass.name).\(primaryKey.name) is not a key")
            }
            return ObjectKey(classID: storedClass.id, key: key)
        }
        guard let id = document["_id"] else { throw StrataError(.invalidValue, "a \(storedClass.name) document has no _id") }
        return try schema.objectKey(id, of: storedClass)
    }

    /// The batch: catalog, records and backlink records.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when a document links to an object that is
    ///   neither stored nor imported; `.corruption` when a stored backlink record is damaged.
    public func batch() throws -> WriteBatch {
        var batch = WriteBatch()
        batch.put(schema.catalog.encoded(), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        for (key, record) in records { batch.put(record, forKey: key.key, in: Keyspace(key.classID)) }
        for (target, incoming) in backlinks {
            guard added.contains(target) || snapshot.contains(target.key, in: Keyspace(target.classID)) else {
                let name = schema.storedClass(id: target.classID)?.name ?? "class \(target.classID)"
                throw StrataError(.invalidValue, "a document links to \(name) \((try? schema.objectKeyJSON(target).rendered()) ?? "?"), which is neither stored nor imported")
            }
            let stored = try Database.decodeBacklinks(of: target, in: snapshot)
            batch.put(Database.encodeBacklinks(stored.union(incoming)), forKey: Database.backlinkKey(target), in: ObjectFormat.backlinkKeyspace)
        }
        return batch
    }
}
