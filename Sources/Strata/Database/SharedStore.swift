import Foundation
import StrataStorage

/// The open store behind every `Database` of one directory in this process, with the catalog
/// and the one-writer lock. Looked up by path (and file system, when it is not the real one) so
/// that opening a database again (for another thread, say) shares the store instead of failing
/// on its lock. Durability is not the store's: each `Database` names its own per commit.
///
/// Thread-safe: the catalog sits behind a lock, the writer lock is a semaphore.
final class SharedStore: @unchecked Sendable {
    let store: Store
    private let catalog: Locked<Catalog>
    private let writer = WriterLock()

    private static let open = Locked<[String: WeakSharedStore]>([:])

    private struct WeakSharedStore { weak var value: SharedStore? }

    private init(store: Store, catalog: Catalog) {
        self.store = store
        self.catalog = Locked(catalog)
    }

    /// The shared store of `directory` on `options.fileSystem`, opening it when no database of
    /// this process has.
    static func open(directory: String, options: Store.Options) throws -> SharedStore {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        let name = registryName(path: path, fileSystem: options.fileSystem)
        return try open.withLock { open in
            if let existing = open[name]?.value { return existing }
            // Entries of stores no database uses any more go, so the registry does not grow
            // with every directory or in-memory file system a process has opened.
            open = open.filter { $0.value.value != nil }
            let store = try Store(directory: path, options: options)
            let shared = SharedStore(store: store, catalog: try Catalog.load(from: store.snapshot()))
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
    /// catalog changed.
    func bind(_ schemas: SchemaSet, schemaVersion: UInt64) throws {
        writer.acquire()
        defer { writer.release() }
        let readOnly = store.options.readOnly
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
    }

    func beginWrite() { writer.acquire() }
    func endWrite() { writer.release() }
}

/// A lock that one thread takes and another may release (a binary semaphore), for the one
/// writer of a store: `beginWrite` and `commitWrite` may run on different threads.
final class WriterLock: @unchecked Sendable {
    private let condition = NSCondition()
    private var isHeld = false

    func acquire() {
        condition.lock()
        while isHeld { condition.wait() }
        isHeld = true
        condition.unlock()
    }

    func release() {
        condition.lock()
        isHeld = false
        condition.broadcast()
        condition.unlock()
    }
}
