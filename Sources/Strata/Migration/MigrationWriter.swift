import StrataStorage

// Writes a migration: the whole new state of the classes it touches, computed from its objects,
// then compared with what is stored, so that one batch puts what changed and deletes what went.
//
// - Keys: a primary key's value, encoded; a class without one keeps an old object's key when it
//   had none before either, else gets a generated one. Two objects with one key fail.
// - Records of declared top-level classes, encoded from the new objects; links become the
//   targets' new keys (a deleted target: null, or gone from a list or set); an object of a class
//   that is embedded now is copied inline into each parent (one with no parent goes).
// - Classes the open does not declare keep their records, their links to moved or deleted
//   objects rewritten; `deleteData(forType:)` deletes them and their catalog entry.
// - The backlink keyspace and the indexes of the rewritten classes are derived again from the
//   new records, as a write would keep them.
// - The catalog: a renamed property keeps its id (and so its stored index), a property whose
//   type or primary-key role changed gets a new one; ids of new properties and classes come
//   from `Catalog.bind`.

struct MigrationWriter {
    let migration: Migration
    let snapshot: Snapshot
    let schemas: [ObjectSchema]
    var batch = WriteBatch()
    /// The live new objects of each declared top-level class (`liveObjects`), by class name.
    private var live: [String: [MigrationObject]] = [:]
    /// The classes whose stored records are all replaced (declared, or data deleted).
    var rewrittenClassIDs: Set<UInt32> = []
    var backlinks: [ObjectKey: Set<Backlink>] = [:]
    var indexEntries: [StorageKey: Set<StorageKey>] = [:]

    init(migration: Migration, snapshot: Snapshot, schemas: [ObjectSchema]) {
        self.migration = migration
        self.snapshot = snapshot
        self.schemas = schemas
    }

    /// Binds `schemas` to the migrated catalog and fills `batch` with the migration's writes,
    /// the catalog among them.
    /// - Returns: the new catalog.
    /// - Throws: ``/StrataStorage/StrataError`` `.primaryKeyExists` when two objects of a class end with one
    ///   primary key, `.invalidValue` for a primary key that cannot be stored or a value
    ///   nested too deep, `.corruption` for a stored record that does not decode.
    mutating func write(from stored: Catalog, schemaVersion: UInt64) throws -> Catalog {
        var catalog = migratedCatalog(stored)
        try catalog.bind(schemas, schemaVersion: schemaVersion)
        let storedByName = Dictionary(stored.classes.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        for schema in schemas where !schema.isEmbedded {
            live[schema.className] = liveObjects(schema.className)
            try assignKeys(schema, stored: storedByName[schema.className])
        }
        for schema in schemas { rewrittenClassIDs.insert(schema.classID) }
        for entry in stored.classes where migration.deletedClasses.contains(entry.name) { rewrittenClassIDs.insert(entry.id) }
        for schema in schemas where !schema.isEmbedded { try writeRecords(schema) }
        var moved: [ObjectKey: ObjectKey]?
        for entry in stored.classes where !entry.isEmbedded {
            if rewrittenClassIDs.contains(entry.id) {
                let kept = schemas.first { $0.classID == entry.id && !$0.isEmbedded }.map { live[$0.className] ?? [] } ?? []
                deleteRecords(notIn: Set(kept.compactMap { $0.newKey?.key }), classID: entry.id)
            } else {
                if moved == nil { moved = movedKeys() }
                try relink(entry, movedKeys: moved ?? [:])
            }
        }
        writeBacklinks()
        writeIndexEntries(rebuildsAll: stored.indexFormat != ObjectFormat.indexFormat)
        setIndexFlags(of: &catalog, rebuildsAll: stored.indexFormat != ObjectFormat.indexFormat)
        batch.put(catalog.encoded(), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        return catalog
    }

    /// The stored catalog with the migration's renames, deleted classes and changed kinds,
    /// and without the entries of properties whose type or key role changed.
    private func migratedCatalog(_ stored: Catalog) -> Catalog {
        var catalog = stored
        catalog.classes.removeAll { entry in
            migration.deletedClasses.contains(entry.name) && !schemas.contains { $0.className == entry.name }
        }
        for index in catalog.classes.indices {
            guard let schema = schemas.first(where: { $0.className == catalog.classes[index].name }) else { continue }
            catalog.classes[index].isEmbedded = schema.isEmbedded
            for rename in migration.renames where rename.className == schema.className {
                guard let at = catalog.classes[index].properties.firstIndex(where: { $0.name == rename.from }) else { continue }
                catalog.classes[index].properties[at].name = rename.to
            }
            catalog.classes[index].properties.removeAll { entry in
                guard let property = schema[entry.name], property.isStored else { return false }
                return entry.code != property.type.storedCode || entry.isPrimaryKey != property.isPrimaryKey
            }
        }
        return catalog
    }

    /// The live new objects of a class: the new versions of its stored objects, then those
    /// created.
    private func liveObjects(_ className: String) -> [MigrationObject] {
        let fromStored = (migration.oldObjects[className] ?? []).compactMap(\.counterpart)
        return (fromStored + (migration.createdObjects[className] ?? [])).filter { !$0.isDeleted }
    }

    /// Gives each live object of a top-level class its key.
    private mutating func assignKeys(_ schema: ObjectSchema, stored: Catalog.ClassEntry?) throws {
        let keepsStoredKeys = stored.map { !$0.isEmbedded && !$0.properties.contains(where: \.isPrimaryKey) } ?? false
        let primaryKey = schema.primaryKey.flatMap { key in ClassShape(schema).index(of: key.name) }
        let objects = live[schema.className] ?? []
        var taken: Set<StorageKey> = []
        taken.reserveCapacity(objects.count)
        for object in objects {
            let key: StorageKey
            if let primaryKey {
                guard case .scalar(let value) = object.values[primaryKey],
                      let encoded = PrimaryKeyEncoding.key(for: value, optional: schema.primaryKeyIsOptional) else {
                    throw StrataError(.invalidValue, "migrating \(schema.className): a primary key \(schema.primaryKey?.name ?? "") cannot be stored")
                }
                key = encoded
            } else if keepsStoredKeys, let storedKey = object.storedKey {
                key = storedKey.key
            } else {
                key = PrimaryKeyEncoding.generatedKey()
            }
            guard taken.insert(key).inserted else {
                throw StrataError(.primaryKeyExists, "migrating \(schema.className): two objects have the primary key \(object[schema.primaryKey?.name ?? ""] ?? "nil")")
            }
            object.newKey = ObjectKey(classID: schema.classID, key: key)
        }
    }

    /// Puts the records of a top-level class's live objects that differ from the stored ones,
    /// and notes their links and index entries.
    private mutating func writeRecords(_ schema: ObjectSchema) throws {
        let positions = ClassShape(schema).properties.map { schema.indexByName[$0.name] }
        for object in live[schema.className] ?? [] {
            guard let key = object.newKey else { continue }
            let fields = try fieldValues(of: object, schema: schema, positions: positions)
            var record: [UInt8] = []
            RecordCodec.encode(fields, schema: schema, appendingTo: &record)
            put(record, key.key, in: Keyspace(schema.classID))
            for link in Database.outgoingLinks(fields, schema: schema) {
                backlinks[link.source, default: []].insert(Backlink(source: key, propertyID: link.propertyID))
            }
            for property in schema.indexedProperties {
                indexEntries[Database.indexEntryKey(schema, property, fields[property.index], key.key), default: []].insert(key.key)
            }
        }
    }

    /// An object's fields in `schema`'s property order; `positions` gives each property of the
    /// object's shape its position there.
    private func fieldValues(of object: MigrationObject, schema: ObjectSchema, positions: [Int?]) throws -> [FieldValue] {
        var fields = schema.defaultFields
        var identity: UInt64 = 0
        for (index, target) in positions.enumerated() {
            guard let target, index < object.values.count else { continue }
            let field = try encode(object.values[index], depth: 0, identity: &identity) ?? .null
            do { try field.checkNesting() } catch { throw StrataError.inContext("\(schema.className).\(object.shape.properties[index].name)", error) }
            fields[target] = field
        }
        return fields
    }

    /// The stored form of a value; nil for a link to an object that is not written (a deleted
    /// one), which a list or set drops and a property or map stores as null.
    private func encode(_ value: MigrationValue, depth: Int, identity: inout UInt64) throws -> FieldValue? {
        guard depth <= ObjectFormat.maxNesting else {
            throw StrataError(.invalidValue, "a migrated value nests deeper than \(ObjectFormat.maxNesting) levels (an embedded object inside itself?)")
        }
        switch value {
        case .scalar(let field): return field
        case .object(nil): return .null
        case .object(let object?):
            guard !object.isDeleted, let schema = schemas.first(where: { $0.className == object.className }) else { return nil }
            guard schema.isEmbedded else { return object.newKey.map(FieldValue.link) }
            var fields = schema.defaultFields
            for (index, property) in object.shape.properties.enumerated() {
                guard let target = schema[property.name] else { continue }
                fields[target.index] = try encode(object.values[index], depth: depth + 1, identity: &identity) ?? .null
            }
            identity += 1
            return .embedded(classID: schema.classID, id: identity, fields: schema.storedFields(fields))
        case .list(let elements):
            return .list(try elements.compactMap { try encode($0, depth: depth + 1, identity: &identity) })
        case .set(let elements):
            var unique: [FieldValue] = []
            for element in elements {
                if let field = try encode(element, depth: depth + 1, identity: &identity), !unique.contains(field) { unique.append(field) }
            }
            return .set(unique)
        case .map(let entries):
            let stored = try entries.map { FieldValue.MapEntry(key: $0.key, value: try encode($0.value, depth: depth + 1, identity: &identity) ?? .null) }
            return .map(stored.sorted { MapKeyBytes($0.key) < MapKeyBytes($1.key) })
        }
    }
}
