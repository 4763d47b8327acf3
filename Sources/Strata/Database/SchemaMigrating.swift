import StrataStorage

/// What an open runs when the stored schema needs a migration: the rewrite of the stored
/// objects and catalog into the declared schema's. `SharedStore.migrate` calls it holding the
/// writer lock and commits what it returns; `MigrationRun` in `Migration/` implements it around
/// the configuration's migration block, so this folder does not depend on the migration's
/// machinery.
protocol SchemaMigrating {
    /// Whether a migration block is given: a higher schema version then migrates even when the
    /// declared classes differ from the stored ones only by additions.
    var hasBlock: Bool { get }

    /// The batch that rewrites `snapshot`'s objects from the `stored` catalog's schema into
    /// `schemas` at `schemaVersion`, and the catalog to commit with it.
    /// - Throws: ``/StrataStorage/StrataError`` when a stored value does not convert, the block
    ///   fails, or the rewrite cannot be made; nothing is written then.
    func rewrite(
        stored: Catalog, snapshot: Snapshot, schemas: [ObjectSchema], schemaVersion: UInt64
    ) throws -> (batch: WriteBatch, catalog: Catalog)
}
