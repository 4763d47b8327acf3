import StrataStorage

// The parts of a migration's writes that compare with what is stored: puts only where the bytes
// change, deletes of what the migration leaves out, and the records of classes the open does not
// declare, whose links follow the objects they reach.

extension MigrationWriter {
    /// Puts `value` under `key` unless it is stored already.
    mutating func put(_ value: [UInt8], _ key: StorageKey, in keyspace: Keyspace) {
        if (try? snapshot.value(for: key, in: keyspace)) == value { return }
        batch.put(value, forKey: key, in: keyspace)
    }

    /// Deletes the stored records of class `classID` whose keys are not in `kept`.
    mutating func deleteRecords(notIn kept: Set<StorageKey>, classID: UInt32) {
        for entry in snapshot.entries(in: Keyspace(classID)) where !kept.contains(entry.key) {
            batch.delete(entry.key, in: Keyspace(classID))
        }
    }

    /// Keeps the records of a class the open does not declare, with their links to objects
    /// the migration moved or deleted rewritten, and notes their links.
    mutating func relink(_ entry: Catalog.ClassEntry, movedKeys: [ObjectKey: ObjectKey]) throws {
        for record in snapshot.entries(in: Keyspace(entry.id)) {
            let source = ObjectKey(classID: entry.id, key: record.key)
            let fields = try Migration.storedFields(of: record, in: snapshot, className: entry.name)
            let relinked = fields.map { FieldValue.Field(id: $0.id, value: relinking($0.value, movedKeys) ?? .null) }
            if relinked != fields { batch.put(RecordCodec.encode(storedFields: relinked), forKey: record.key, in: Keyspace(entry.id)) }
            for field in relinked {
                var targets: [ObjectKey] = []
                Database.collectLinks(field.value, into: &targets)
                for target in targets { backlinks[target, default: []].insert(Backlink(source: source, propertyID: field.id)) }
            }
        }
    }

    /// A stored value with its links to rewritten classes following their objects; nil for a
    /// link to an object that is gone (dropped from a list or set, null elsewhere).
    private func relinking(_ value: FieldValue, _ movedKeys: [ObjectKey: ObjectKey]) -> FieldValue? {
        switch value {
        case .link(let key):
            guard rewrittenClassIDs.contains(key.classID) else { return value }
            return movedKeys[key].map(FieldValue.link)
        case .list(let elements): return .list(elements.compactMap { relinking($0, movedKeys) })
        case .set(let elements): return .set(elements.compactMap { relinking($0, movedKeys) })
        case .map(let entries): return .map(entries.map { FieldValue.MapEntry(key: $0.key, value: relinking($0.value, movedKeys) ?? .null) })
        case .embedded(let classID, let id, let fields):
            return .embedded(classID: classID, id: id, fields: fields.map { FieldValue.Field(id: $0.id, value: relinking($0.value, movedKeys) ?? .null) })
        default: return value
        }
    }

    /// Old keys of the stored objects of declared classes to their new ones (absent: the
    /// object is gone), for relinking the classes the open does not declare.
    func movedKeys() -> [ObjectKey: ObjectKey] {
        var moved: [ObjectKey: ObjectKey] = [:]
        for objects in migration.oldObjects.values {
            for object in objects {
                if let storedKey = object.storedKey, let counterpart = object.counterpart, !counterpart.isDeleted, let key = counterpart.newKey {
                    moved[storedKey] = key
                }
            }
        }
        return moved
    }

    /// Puts every backlink record the new links give and deletes the others.
    mutating func writeBacklinks() {
        var kept: Set<StorageKey> = []
        for (target, sources) in backlinks {
            let key = Database.backlinkKey(target)
            kept.insert(key)
            put(Database.encodeBacklinks(sources), key, in: ObjectFormat.backlinkKeyspace)
        }
        for entry in snapshot.entries(in: ObjectFormat.backlinkKeyspace) where !kept.contains(entry.key) {
            batch.delete(entry.key, in: ObjectFormat.backlinkKeyspace)
        }
    }

    /// Puts the index entries of the rewritten classes and deletes their stale ones (with
    /// `rebuildsAll`, every stale entry: the stored ones are of an older format).
    mutating func writeIndexEntries(rebuildsAll: Bool) {
        for (key, objects) in indexEntries {
            put(IndexKeyEncoding.mayBeShared(key) ? Database.sharedEntryValue(key, objects: objects) : [], key, in: ObjectFormat.indexKeyspace)
        }
        for entry in snapshot.entries(in: ObjectFormat.indexKeyspace) where indexEntries[entry.key] == nil {
            let classID = entry.key.withUnsafeBytes { $0.count >= 4 ? $0.loadUnaligned(as: UInt32.self).bigEndian : 0 }
            if rebuildsAll || rewrittenClassIDs.contains(classID) { batch.delete(entry.key, in: ObjectFormat.indexKeyspace) }
        }
    }

    /// Records in `catalog` which indexes are complete: the declared ones of the rewritten
    /// classes; with `rebuildsAll` no other.
    func setIndexFlags(of catalog: inout Catalog, rebuildsAll: Bool) {
        for classIndex in catalog.classes.indices {
            let entry = catalog.classes[classIndex]
            let schema = schemas.first { $0.classID == entry.id }
            guard schema != nil || rebuildsAll else { continue }
            for propertyIndex in entry.properties.indices {
                let property = schema?.properties.first { $0.isStored && $0.propertyID == entry.properties[propertyIndex].id }
                let indexed = property.map { $0.isIndexed && !$0.isPrimaryKey && !(schema?.isEmbedded ?? true) } ?? false
                catalog.classes[classIndex].properties[propertyIndex].isIndexed = indexed
            }
        }
        catalog.indexFormat = ObjectFormat.indexFormat
    }
}
