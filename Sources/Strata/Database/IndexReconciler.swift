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
// A rebuild larger than `chunkBytes` is committed in parts (a transaction holds at most 1 GiB),
// each with a catalog that records none of the indexes being changed as current and the old
// format; the catalog with the result comes last. A crash between parts leaves no half-built
// or half-dropped index in use, and the next writable open starts the work again.
//
// A read-only open changes nothing: a property's index is used only when the catalog records it
// as current (`PropertySchema.indexIsUsable`); other queries scan. An object whose record does
// not decode gets no entry (`verify` names the record).

enum IndexReconciler {
    /// The most bytes of operations one part of a rebuild commits.
    static let chunkBytes = 64 << 20

    /// One property of the catalog whose stored index changes: built (`build`, its schema) or
    /// dropped (no longer declared indexed, or no longer declared at all).
    private struct Change {
        let classID: UInt32
        let propertyID: UInt32
        let build: PropertySchema?
    }

    /// Adds to `batch` what brings the stored indexes in line with `schemas`, and records the
    /// result in `catalog` (already bound to `schemas`); the caller commits `batch` with it.
    /// Parts beyond `chunkBytes` go through `commit` first.
    /// - Throws: what `commit` throws.
    static func reconcile(
        _ catalog: inout Catalog, schemas: [ObjectSchema], snapshot: Snapshot, into batch: inout WriteBatch,
        chunkBytes: Int = chunkBytes, commit: @escaping (WriteBatch) throws -> Void
    ) throws {
        let rebuildsAll = catalog.indexFormat != ObjectFormat.indexFormat
        let changes = self.changes(catalog, schemas: schemas, rebuildsAll: rebuildsAll)
        guard rebuildsAll || !changes.isEmpty else { return }
        func change(_ classID: UInt32, _ propertyID: UInt32) -> Change? {
            changes.first { $0.classID == classID && $0.propertyID == propertyID }
        }
        var interim = catalog
        setFlags(of: &interim) { rebuildsAll || change($0, $1) != nil ? false : nil }
        var output = Output(batch: batch, interim: interim.encoded(), limit: chunkBytes, commit: commit)
        if rebuildsAll {
            for entry in snapshot.entries(in: ObjectFormat.indexKeyspace) { try output.delete(entry.key) }
        } else {
            for change in changes { try deleteEntries(classID: change.classID, propertyID: change.propertyID, in: snapshot, into: &output) }
        }
        for schema in schemas {
            let toBuild = changes.filter { $0.classID == schema.classID }.compactMap(\.build)
            if !toBuild.isEmpty { try buildEntries(of: schema, toBuild, from: snapshot, into: &output) }
        }
        setFlags(of: &catalog) { change($0, $1).map { $0.build != nil } ?? (rebuildsAll ? false : nil) }
        catalog.indexFormat = ObjectFormat.indexFormat
        batch = output.batch
    }

    /// Whether `reconcile` would change anything: the recorded index format is not the current
    /// one, or a declared index differs from what `catalog` (bound to `schemas`) records.
    static func needsWork(_ catalog: Catalog, schemas: [ObjectSchema]) -> Bool {
        let rebuildsAll = catalog.indexFormat != ObjectFormat.indexFormat
        return rebuildsAll || !changes(catalog, schemas: schemas, rebuildsAll: false).isEmpty
    }

    /// The properties of the top-level classes of `schemas` whose declared index differs from
    /// what the catalog records (with `rebuildsAll`, every declared index).
    private static func changes(_ catalog: Catalog, schemas: [ObjectSchema], rebuildsAll: Bool) -> [Change] {
        var changes: [Change] = []
        for schema in schemas where !schema.isEmbedded {
            guard let entry = catalog.classes.first(where: { $0.id == schema.classID }) else { continue }
            for stored in entry.properties where !stored.isPrimaryKey {
                let property = schema.properties.first { $0.isStored && $0.propertyID == stored.id }
                let declared = property?.isIndexed ?? false
                let recorded = !rebuildsAll && stored.isIndexed
                if declared != recorded {
                    changes.append(Change(classID: schema.classID, propertyID: stored.id, build: declared ? property : nil))
                }
            }
        }
        return changes
    }

    /// Sets the `isIndexed` flag of each property of the catalog that `flag` gives one for
    /// (called with the class id and the property id).
    private static func setFlags(of catalog: inout Catalog, _ flag: (UInt32, UInt32) -> Bool?) {
        for classIndex in catalog.classes.indices {
            let classID = catalog.classes[classIndex].id
            for propertyIndex in catalog.classes[classIndex].properties.indices {
                guard let value = flag(classID, catalog.classes[classIndex].properties[propertyIndex].id) else { continue }
                catalog.classes[classIndex].properties[propertyIndex].isIndexed = value
            }
        }
    }

    /// A rebuild's batch, committed in parts of at most `limit` bytes, each with the interim
    /// catalog (see the top of the file).
    private struct Output {
        var batch: WriteBatch
        let interim: [UInt8]
        let limit: Int
        let commit: (WriteBatch) throws -> Void
        private var bytes = 0

        init(batch: WriteBatch, interim: [UInt8], limit: Int, commit: @escaping (WriteBatch) throws -> Void) {
            self.batch = batch
            self.interim = interim
            self.limit = limit
            self.commit = commit
        }

        mutating func put(_ value: [UInt8], _ key: StorageKey) throws {
            batch.put(value, forKey: key, in: ObjectFormat.indexKeyspace)
            try account(key.count + value.count)
        }

        mutating func delete(_ key: StorageKey) throws {
            batch.delete(key, in: ObjectFormat.indexKeyspace)
            try account(key.count)
        }

        /// Counts an operation (with a record's framing, 28 bytes) and commits a full part.
        private mutating func account(_ count: Int) throws {
            bytes += count + 28
            guard bytes >= limit else { return }
            batch.put(interim, forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
            try commit(batch)
            batch = WriteBatch()
            bytes = 0
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
    private static func deleteEntries(classID: UInt32, propertyID: UInt32, in snapshot: Snapshot, into output: inout Output) throws {
        let prefix = IndexKeyEncoding.propertyPrefix(classID: classID, propertyID: propertyID)
        var walk = snapshot.entries(in: ObjectFormat.indexKeyspace).makeIterator(from: StorageKey(prefix))
        while let entry = walk.next(), entry.key.withUnsafeBytes({ $0.starts(with: prefix) }) {
            try output.delete(entry.key)
        }
    }

    /// Puts the entries of `properties` for every object of the class (a field a record does
    /// not hold has its default, as a read gives it).
    private static func buildEntries(of schema: ObjectSchema, _ properties: [PropertySchema], from snapshot: Snapshot, into output: inout Output) throws {
        var shared: [StorageKey: Set<StorageKey>] = [:]
        for entry in snapshot.entries(in: Keyspace(schema.classID)) {
            guard let fields = try? snapshot.withValue(of: entry, { try RecordCodec.decodeFields($0, schema: schema) }) else { continue }
            for property in properties {
                let key = Database.indexEntryKey(schema, property, fields[property.index], entry.key)
                if IndexKeyEncoding.mayBeShared(key) {
                    shared[key, default: []].insert(entry.key)
                } else {
                    try output.put([], key)
                }
            }
        }
        for (key, objects) in shared { try output.put(Database.sharedEntryValue(key, objects: objects), key) }
    }
}
