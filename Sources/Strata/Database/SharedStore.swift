import Foundation
import StrataStorage

/// The open store behind every `Database` of one directory in this process, with the catalog
/// and the one-writer lock. Looked up by path (and file system, when it is not the real one) so
/// that opening a database again (for another thread, say) shares the store instead of failing
/// on its lock. Durability is not the store's: each `Database` names its own per commit.
///
/// Thread-safe: the catalog sits behind a lock, the writer lock is a semaphore (`WriterLock`).
final class SharedStore: @unchecked Sendable {
    let store: Store
    /// What the store is registered under (see `registryName`): the same for every open of the
    /// same files in this process.
    let name: String
    let catalog: Locked<Catalog>
    let writerLock: WriterLock
    /// Whether a `Database` bound its schemas to the store: a migration then waits until none
    /// uses it (their schemas would no longer match).
    let isBound = Locked(false)
    /// How many frozen databases read each version (by sequence).
    let pinnedVersions = Locked<[UInt64: Int]>([:])
    /// The change observers of these files in this process, told of each commit.
    let notifier = CommitNotifier()
    /// For a read-only store: tells `notifier` of the writing process's commits while there are
    /// observers (nil for a writable store, whose commits are all made here).
    private(set) var follower: StoreFollower?

    private static let open = Locked<[String: WeakSharedStore]>([:])

    private struct WeakSharedStore { weak var value: SharedStore? }

    /// The stores whose last database went and which are closing (see `deinit`).
    private static let closing = ClosingStores()

    private init(store: Store, catalog: Catalog, name: String) {
        self.store = store
        self.name = name
        writerLock = WriterLock(directory: store.directory)
        self.catalog = Locked(catalog)
        if store.options.readOnly { follower = StoreFollower(store: store, notifier: notifier) }
    }

    /// Closes the store (frozen views keep reading it), so that its directory lock is released
    /// now, before an open of the same files that found no shared store goes on (`open` waits for
    /// it), rather than whenever the last snapshot of the store goes.
    deinit {
        Self.closing.begin(name)
        try? store.close()
        Self.closing.end(name)
    }

    /// The shared store of `directory` on `options.fileSystem`, opening it when no database of
    /// this process has. A read-only open shares the writable store this process has open, if
    /// any (it is always current), else the read-only one; a writable open never shares a
    /// read-only store.
    static func open(directory: String, options: Store.Options) throws -> SharedStore {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        let writableName = registryName(path: path, fileSystem: options.fileSystem)
        let name = options.readOnly ? "read-only:" + writableName : writableName
        return try open.withLock { open in
            if options.readOnly, let writable = open[writableName]?.value { return try writable.checkingKey(options) }
            if let existing = open[name]?.value { return try existing.checkingKey(options) }
            // Entries of stores no database uses any more go, so the registry does not grow
            // with every directory or in-memory file system a process has opened.
            open = open.filter { $0.value.value != nil }
            closing.waitUntilClosed(name)
            let store = try Store(directory: path, options: options)
            let shared = SharedStore(store: store, catalog: try Catalog.load(from: store.snapshot()), name: name)
            open[name] = WeakSharedStore(value: shared)
            return shared
        }
    }

    /// The name an open store is registered under: its path, preceded by the identity of its
    /// file system when that is an object (an in-memory file system's `/db` is not the disk's).
    private static func registryName(path: String, fileSystem: any FileSystem) -> String {
        guard type(of: fileSystem) is AnyClass else { return path }
        return "\(ObjectIdentifier(fileSystem as AnyObject)):\(path)"
    }

    /// Assigns the schemas their ids and, in a writable store, brings the secondary indexes in
    /// line with the declared ones (`IndexReconciler`), committing both in one commit when the
    /// catalog changed. Only that commit waits for the writer lock: opening a database whose
    /// classes and indexes the catalog holds already never waits for a writer (a task opening
    /// one does not hold a thread while another writer works).
    ///
    /// With `requireStoredSchema` (a `Database` opened with `Configuration.readOnly`) a catalog
    /// that would change throws instead. A schema that needs a migration (or a reset) gets it
    /// first, in its own commit (SharedStore+Migration.swift).
    /// - Throws: ``/StrataStorage/StrataError`` `.schemaMismatch` listing the differences; `.readOnly` when
    ///   `requireStoredSchema` and the classes are not all stored as declared;
    ///   `.notInWriteTransaction` when the catalog must change while the calling thread (or
    ///   task) has a write open on another database of this store; what a migration throws.
    func bind(
        _ schemas: SchemaSet, schemaVersion: UInt64, requireStoredSchema: Bool = false, migration: MigrationSettings
    ) throws {
        let readOnly = store.options.readOnly
        let stored = catalog.withLock { $0 }
        if try Self.schemaStep(stored: stored, declared: schemas.all, schemaVersion: schemaVersion, settings: migration) != .bind,
           try self.migrate(schemas, schemaVersion: schemaVersion, settings: migration, readOnly: readOnly || requireStoredSchema) {
            IndexReconciler.markUsable(schemas.all, catalog: catalog.withLock { $0 }, readOnly: readOnly)
            schemas.index()
            isBound.withLock { $0 = true }
            return
        }
        let changesCatalog = try catalog.withLock { catalog in
            var updated = catalog
            try updated.bind(schemas.all, schemaVersion: schemaVersion)
            if requireStoredSchema, updated != catalog {
                throw Self.unstoredSchemaError(schemas, stored: catalog, schemaVersion: schemaVersion)
            }
            return updated != catalog || (!readOnly && IndexReconciler.needsWork(updated, schemas: schemas.all))
        }
        guard changesCatalog else {
            catalog.withLock { IndexReconciler.markUsable(schemas.all, catalog: $0, readOnly: readOnly) }
            schemas.index()
            isBound.withLock { $0 = true }
            return
        }
        try writerLock.acquire(for: "opening a Database that stores new classes or indexes")
        defer { writerLock.release() }
        try catalog.withLock { catalog in
            var updated = catalog
            try updated.bind(schemas.all, schemaVersion: schemaVersion)
            // A read-only store keeps the ids of classes it does not hold in memory only: it has
            // no objects of them to read.
            if !readOnly {
                var batch = WriteBatch()
                let store = store
                try IndexReconciler.reconcile(&updated, schemas: schemas.all, snapshot: store.snapshot(), into: &batch) {
                    try store.commit($0)
                }
                if updated != catalog {
                    batch.put(updated.encoded(), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
                    try store.commit(batch)
                }
            }
            catalog = updated
            IndexReconciler.markUsable(schemas.all, catalog: updated, readOnly: readOnly)
        }
        schemas.index()
        isBound.withLock { $0 = true }
    }

    /// Why a read-only open cannot use `stored`: the classes it lacks, or else a property or the
    /// schema version that differs.
    private static func unstoredSchemaError(_ schemas: SchemaSet, stored: Catalog, schemaVersion: UInt64) -> StrataError {
        let missing = schemas.all.map(\.className).filter { name in !stored.classes.contains { $0.name == name } }
        let what = missing.isEmpty
            ? "differs from the declared classes (a property, or schema version \(schemaVersion) above the stored \(stored.schemaVersion))"
            : "does not hold \(missing.joined(separator: ", "))"
        return StrataError(
            .readOnly, "the database is opened read-only and its stored schema \(what); open it writable once to store the schema")
    }

    /// Takes the writer lock, blocking the thread while another writer holds it.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` when the calling thread (or task)
    ///   holds it already, through another database of this store.
    func beginWrite() throws { try writerLock.acquire(for: "a write") }
    /// Takes the writer lock on the caller's isolation, suspending the task while another
    /// writer holds it.
    /// - Throws: `CancellationError` when the task is cancelled first (the lock is not taken);
    ///   ``/StrataStorage/StrataError`` `.notInWriteTransaction` when the calling task holds it already.
    func beginWriteSuspending(isolation: isolated (any Actor)? = #isolation) async throws {
        try await writerLock.acquireSuspending(for: "an asyncWrite")
    }
    func endWrite() { writerLock.release() }
}
