import StrataStorage

/// The migration an open runs (`SchemaMigrating`): the stored objects loaded into a
/// ``Migration``, the configuration's block called with it, and the result written
/// (`MigrationWriter`).
struct MigrationRun: SchemaMigrating {
    /// The configuration's migration block, if any.
    let block: MigrationBlock?

    var hasBlock: Bool { block != nil }

    func rewrite(
        stored: Catalog, snapshot: Snapshot, schemas: [ObjectSchema], schemaVersion: UInt64
    ) throws -> (batch: WriteBatch, catalog: Catalog) {
        let migration = try Migration(catalog: stored, snapshot: snapshot, declared: schemas)
        block?(migration, stored.schemaVersion)
        if let error = migration.error { throw error }
        var writer = MigrationWriter(migration: migration, snapshot: snapshot, schemas: schemas)
        let updated = try writer.write(from: stored, schemaVersion: schemaVersion)
        return (writer.batch, updated)
    }
}
