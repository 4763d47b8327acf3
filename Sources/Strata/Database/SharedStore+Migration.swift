import StrataStorage

// What opening with a schema does to the stored one (see Schema/SchemaDifferences.swift):
// bind it (the same schema, or additive changes), migrate it (a higher schema version with a
// migration block or with changes that need one) through `SchemaMigrating`, reset it
// (`deleteDatabaseIfMigrationNeeded` when a migration would run), or refuse with every
// difference listed.

extension SharedStore {
    /// How an open handles a schema that needs a migration.
    struct MigrationSettings {
        /// What rewrites the objects when the step is `.migrate`.
        var migration: any SchemaMigrating
        var deletesDatabaseIfNeeded = false
    }

    /// What an open does to the stored schema.
    enum SchemaStep: Equatable { case bind, migrate, reset }

    /// The step that takes `stored` to `declared` at `schemaVersion`.
    /// - Throws: ``/StrataStorage/StrataError`` `.schemaMismatch` listing every difference, when the
    ///   configuration's version is below the stored one, or the schema changed in a way that
    ///   needs a migration without a higher version (and no reset is allowed).
    static func schemaStep(stored: Catalog, declared: [ObjectSchema], schemaVersion: UInt64, settings: MigrationSettings) throws -> SchemaStep {
        guard !stored.classes.isEmpty else { return .bind }
        let storedShapes = try stored.classes.map(ClassShape.init)
        let differences = schemaDifferences(stored: storedShapes, declared: declared.map(ClassShape.init))
        let needsMigration = differences.contains { !$0.isAdditive }
        if schemaVersion == stored.schemaVersion, !needsMigration { return .bind }
        if settings.deletesDatabaseIfNeeded { return .reset }
        if schemaVersion > stored.schemaVersion { return !settings.migration.hasBlock && !needsMigration ? .bind : .migrate }
        let why = schemaVersion < stored.schemaVersion
            ? "the database has schema version \(stored.schemaVersion), newer than the configuration's \(schemaVersion)"
            : "the declared classes differ from the stored schema (version \(stored.schemaVersion)) in ways that need a migration: raise schemaVersion (and give a migrationBlock to convert values)"
        let list = differences.map { "\n- \($0)" }.joined()
        throw StrataError(.schemaMismatch, why + (list.isEmpty ? "" : "; the differences:" + list))
    }

    /// Runs `step` (a migration or a reset) in one commit, holding the writer lock, unless the
    /// stored schema changed meanwhile so that it is no longer needed.
    /// - Returns: whether it ran (false: bind instead).
    /// - Throws: ``/StrataStorage/StrataError`` from the migration block's values or the rewrite; the
    ///   commit's `.io`; `.schemaMismatch` when other databases of this process use the store;
    ///   `.notInWriteTransaction` when the calling thread (or task) has a write open on one.
    func migrate(
        _ schemas: SchemaSet, schemaVersion: UInt64, settings: MigrationSettings, readOnly: Bool
    ) throws -> Bool {
        try writerLock.acquire(for: "a migration")
        defer { writerLock.release() }
        let stored = catalog.withLock { $0 }
        let step = try Self.schemaStep(stored: stored, declared: schemas.all, schemaVersion: schemaVersion, settings: settings)
        guard step != .bind else { return false }
        guard !readOnly else {
            throw StrataError(.readOnly, "the database is opened read-only and its schema (version \(stored.schemaVersion)) needs a migration to version \(schemaVersion)")
        }
        guard !isBound.withLock({ $0 }) else {
            throw StrataError(.schemaMismatch, "the database is open in this process with schema version \(stored.schemaVersion); release every Database of it before migrating to version \(schemaVersion)")
        }
        let snapshot = store.snapshot()
        var batch: WriteBatch
        var updated: Catalog
        if step == .reset {
            batch = WriteBatch()
            for keyspace in snapshot.keyspaces {
                for entry in snapshot.entries(in: keyspace) { batch.delete(entry.key, in: keyspace) }
            }
            updated = Catalog()
            try updated.bind(schemas.all, schemaVersion: schemaVersion)
            updated.indexFormat = ObjectFormat.indexFormat
            batch.put(updated.encoded(), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        } else {
            (batch, updated) = try settings.migration.rewrite(
                stored: stored, snapshot: snapshot, schemas: schemas.all, schemaVersion: schemaVersion)
        }
        try store.commit(batch)
        catalog.withLock { $0 = updated }
        return true
    }
}
