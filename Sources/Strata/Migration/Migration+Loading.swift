import StrataStorage

// Loads a migration's objects: every stored top-level object of every class in the catalog, as
// an old migration object (values decoded by the catalog's shapes, links resolved to the old
// objects they reach), and for each one whose class is declared, its new version with the
// values converted (Migration+Values.swift).

extension Migration {
    /// A migration from the objects `snapshot` stores under `catalog` to the `declared`
    /// classes.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` naming the class and key of a record or catalog
    ///   entry that does not decode (nothing is migrated).
    convenience init(catalog: Catalog, snapshot: Snapshot, declared: [ObjectSchema]) throws {
        var oldShapes: [String: ClassShape] = [:]
        for entry in catalog.classes { oldShapes[entry.name] = try ClassShape(entry) }
        self.init(oldShapes: oldShapes, newShapes: Dictionary(declared.map { ($0.className, ClassShape($0)) }, uniquingKeysWith: { $1 }))
        var stored: [(object: MigrationObject, fields: [FieldValue.Field], entry: Catalog.ClassEntry)] = []
        var byKey: [ObjectKey: MigrationObject] = [:]
        let total = catalog.classes.reduce(0) { $0 + ($1.isEmbedded ? 0 : snapshot.count(in: Keyspace($1.id))) }
        stored.reserveCapacity(total)
        byKey.reserveCapacity(total)
        for entry in catalog.classes where !entry.isEmbedded {
            guard let shape = oldShapes[entry.name] else { continue }
            var objects: [MigrationObject] = []
            objects.reserveCapacity(snapshot.count(in: Keyspace(entry.id)))
            defer { oldObjects[entry.name] = objects }
            for record in snapshot.entries(in: Keyspace(entry.id)) {
                let key = ObjectKey(classID: entry.id, key: record.key)
                let fields = try Self.storedFields(of: record, in: snapshot, className: entry.name)
                let object = MigrationObject(shape: shape, values: [], isNew: false, storedKey: key, migration: self)
                stored.append((object, fields, entry))
                byKey[key] = object
                objects.append(object)
            }
        }
        let entriesByID = Dictionary(catalog.classes.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for (object, fields, entry) in stored {
            object.values = oldValues(fields, entry: entry, entries: entriesByID, byKey: byKey)
        }
        for (object, _, _) in stored {
            guard let shape = newShapes[object.className] else { continue }
            object.counterpart = MigrationObject(shape: shape, values: shape.defaultValues, isNew: true, storedKey: object.storedKey, migration: self)
        }
        for (object, _, _) in stored {
            if let counterpart = object.counterpart { fill(counterpart, from: object) }
        }
    }

    /// The fields of a stored record, by property id.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` naming the class and key when it does not decode.
    static func storedFields(of record: Snapshot.Entry, in snapshot: Snapshot, className: String) throws -> [FieldValue.Field] {
        do {
            return try snapshot.withValue(of: record) { try RecordCodec.decodeStoredFields($0) }
        } catch {
            throw StrataError.inContext("migrating \(className) object with key \(record.key)", error)
        }
    }

    /// The values of an old object (or embedded object) of `entry`'s class from its stored
    /// fields; a property with no field is null.
    private func oldValues(
        _ fields: [FieldValue.Field], entry: Catalog.ClassEntry, entries: [UInt32: Catalog.ClassEntry], byKey: [ObjectKey: MigrationObject]
    ) -> [MigrationValue] {
        var values = Array(repeating: MigrationValue.null, count: entry.properties.count)
        for field in fields {
            guard let index = entry.properties.firstIndex(where: { $0.id == field.id }) else { continue }
            values[index] = MigrationValue.decoding(field.value, resolveLink: { byKey[$0] }) { classID, embeddedFields in
                guard let embedded = entries[classID], let shape = self.oldShapes[embedded.name] else { return nil }
                let object = MigrationObject(shape: shape, values: [], isNew: false, storedKey: nil, migration: self)
                object.values = self.oldValues(embeddedFields, entry: embedded, entries: entries, byKey: byKey)
                return object
            }
        }
        return values
    }
}
