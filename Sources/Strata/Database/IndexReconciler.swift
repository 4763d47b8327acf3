import StrataStorage

// Keeps keyspace 2 in step with the indexes the model classes declare, when a database opens.
// The catalog records which properties have a complete index and in which format; a writable
// open then, in the commit that binds the catalog:
//
// - rebuilds every index when the recorded format is not the current one (a database written
//   before index formats were numbered: its records are deleted, none is read);
// - builds the entries of a property declared indexed that the catalog does not record as
//   indexed (a new property, or `indexed: true` added to an old one), and deletes the entries
//   of one no longer declared indexed.
//
// A read-only open changes nothing: a property's index is used only when the catalog records it
// as current (`PropertySchema.indexIsUsable`); other queries scan. An object whose record does
// not decode gets no entry (`verify` names the record).

enum IndexReconciler {
    /// Adds to `batch` what brings the stored indexes in line with `schemas`, and records the
    /// result in `catalog` (already bound to `schemas`).
    static func reconcile(_ catalog: inout Catalog, schemas: [ObjectSchema], snapshot: Snapshot, into batch: inout WriteBatch) {
        let rebuildsAll = catalog.indexFormat != ObjectFormat.indexFormat
        if rebuildsAll {
            for entry in snapshot.entries(in: ObjectFormat.indexKeyspace) { batch.delete(entry.key, in: ObjectFormat.indexKeyspace) }
            for classIndex in catalog.classes.indices {
                for propertyIndex in catalog.classes[classIndex].properties.indices {
                    catalog.classes[classIndex].properties[propertyIndex].isIndexed = false
                }
            }
            catalog.indexFormat = ObjectFormat.indexFormat
        }
        for schema in schemas where !schema.isEmbedded {
            guard let classIndex = catalog.classes.firstIndex(where: { $0.id == schema.classID }) else { continue }
            var toBuild: [PropertySchema] = []
            for property in schema.properties where property.isStored && !property.isPrimaryKey {
                guard let position = catalog.classes[classIndex].properties.firstIndex(where: { $0.id == property.propertyID }) else { continue }
                let declared = property.isIndexed, recorded = catalog.classes[classIndex].properties[position].isIndexed
                guard declared != recorded else { continue }
                if !rebuildsAll { deleteEntries(of: schema, property, in: snapshot, into: &batch) }
                if declared { toBuild.append(property) }
                catalog.classes[classIndex].properties[position].isIndexed = declared
            }
            if !toBuild.isEmpty { buildEntries(of: schema, toBuild, from: snapshot, into: &batch) }
        }
    }

    /// Sets which properties' indexes queries may read: the declared ones after a writable
    /// open; in a read-only one, those the catalog records as current.
    static func markUsable(_ schemas: [ObjectSchema], catalog: Catalog, readOnly: Bool) {
        for schema in schemas {
            for property in schema.properties {
                property.indexIsUsable = property.isIndexed && !property.isPrimaryKey && !schema.isEmbedded
                    && (!readOnly || catalog.hasCurrentIndex(classID: schema.classID, propertyID: property.propertyID))
            }
        }
    }

    /// Deletes every stored entry of one property.
    private static func deleteEntries(of schema: ObjectSchema, _ property: PropertySchema, in snapshot: Snapshot, into batch: inout WriteBatch) {
        let prefix = IndexKeyEncoding.propertyPrefix(classID: schema.classID, propertyID: property.propertyID)
        var walk = snapshot.entries(in: ObjectFormat.indexKeyspace).makeIterator(from: StorageKey(prefix))
        while let entry = walk.next(), entry.key.withUnsafeBytes({ $0.starts(with: prefix) }) {
            batch.delete(entry.key, in: ObjectFormat.indexKeyspace)
        }
    }

    /// Puts the entries of `properties` for every object of the class (a field a record does
    /// not hold has its default, as a read gives it).
    private static func buildEntries(of schema: ObjectSchema, _ properties: [PropertySchema], from snapshot: Snapshot, into batch: inout WriteBatch) {
        var shared: [StorageKey: Set<StorageKey>] = [:]
        for entry in snapshot.entries(in: Keyspace(schema.classID)) {
            guard let fields = try? snapshot.withValue(of: entry, { try RecordCodec.decodeFields($0, schema: schema) }) else { continue }
            for property in properties {
                let key = Database.indexEntryKey(schema, property, fields[property.index], entry.key)
                if IndexKeyEncoding.mayBeShared(key) {
                    shared[key, default: []].insert(entry.key)
                } else {
                    batch.put([], forKey: key, in: ObjectFormat.indexKeyspace)
                }
            }
        }
        for (key, objects) in shared { Database.putSharedEntry(key, objects: objects, into: &batch) }
    }
}
