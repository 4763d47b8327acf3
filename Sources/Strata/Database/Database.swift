import Foundation
import StrataStorage

/// A Strata database: model objects stored in a StrataStorage log.
///
/// ```swift
/// let db = try Database(configuration: .init(directory: url, objectTypes: [Dog.self]))
/// try db.write { try db.add(Dog()) }
/// let dogs = db.objects(Dog.self).where { $0.age > 2 }
/// ```
///
/// A live database reads one version at a time, as a Realm does: every `Results`, collection
/// and object read through it sees the same commit until the database advances — when a write
/// begins on it, on ``refresh()``, at the first read after ``invalidate()``, and, when
/// ``autorefresh`` is on and the database was opened on an actor, between that actor's jobs
/// after another commit lands (never inside one). ``freeze()`` gives an immutable view of one
/// version. Writes happen inside ``write(_:)``: atomic, durable, one writer at a time (other
/// writers wait; readers never do).
///
/// Thread safety: a live `Database` and the live objects read from it are used by one thread at
/// a time, as Realm's are, so `Database` is not `Sendable`: open another `Database` (cheap: it
/// shares the open store) from the `Sendable` ``configuration`` on another thread or task. A
/// frozen `Database` and its objects are immutable and may be read from any thread; ``freeze()``
/// returns a `sending` value, so a new frozen view may be handed to another task. A live object,
/// `Results` or collection crosses as a ``ThreadSafeReference`` that ``resolve(_:)`` reads there;
/// from async code, ``asyncWrite(isolation:_:)`` waits for the writer lock without holding a
/// thread; an actor uses a database by owning it.
public final class Database {
    /// What a database is opened with.
    ///
    /// A value type; `Sendable`.
    public struct Configuration: Sendable {
        /// The directory that holds the database's files; created if missing.
        public var directory: URL
        /// The model classes (every `Object` and `EmbeddedObject` subclass used).
        public var objectTypes: [ObjectBase.Type]
        /// The version of the schema the classes describe; it may only grow.
        public var schemaVersion: UInt64
        /// How durable each `write` of this `Database` is when it returns. Default `.full`
        /// (synced). Each `Database` commits with its own durability, also when it shares its
        /// store with another `Database` of the same directory.
        public var durability: Durability
        /// Open the database read-only, as Realm's `readOnly`: no lock is taken and nothing is
        /// ever written, so any number of processes may read a directory that one other process
        /// writes. Default `false`.
        ///
        /// ``Database/write(_:)``, ``Database/beginWrite()`` and
        /// ``Database/asyncWrite(isolation:_:)`` throw ``/StrataStorage/StrataError`` `.readOnly`; the stored
        /// schema must already hold every class of ``objectTypes`` as declared (opening throws
        /// `.readOnly` or `.schemaMismatch` otherwise, and writes nothing). A read-only database
        /// follows the writing process: its change observers are told of that process's
        /// commits (the files are watched while any observer is registered), and
        /// ``Database/refresh()`` catches it up by hand.
        public var readOnly = false
        /// The ``migrationBlock``, held as a value this folder does not read: `Migration/`
        /// declares the block's type and hands it to the open (Configuration+Migration.swift).
        var migrationBlockStorage: (any Sendable)?
        /// Delete every object and the stored schema, and start again with the declared one,
        /// instead of migrating, whenever a migration would run (the stored schema version
        /// differs, or the schema changed in a way that needs one), as Realm's
        /// `deleteRealmIfMigrationNeeded`. The migration block is then not called. Default
        /// `false`.
        public var deleteDatabaseIfMigrationNeeded = false
        /// Keep the database in this process's memory under this name instead of in
        /// ``directory``, as Realm's `inMemoryIdentifier`: nothing touches the disk, databases
        /// opened with the same identifier in one process share their objects, and the objects
        /// are gone once no `Database` of the identifier is left. Default nil.
        public var inMemoryIdentifier: String?
        /// A database directory (one a build ships, say) copied into ``directory`` when that
        /// holds no database yet, before opening, as Realm's `seedFilePath`: only into a missing
        /// or empty directory; one holding other files is refused (`.invalidArgument`) and left
        /// as it is. Default nil.
        public var seedFilePath: URL?
        /// Decides, when this process first opens the database writable, whether to compact it
        /// first, as Realm's `shouldCompactOnLaunch`: called with the bytes of the database's
        /// files and the bytes its live objects use. Compaction is online (see
        /// ``Database/compact()``). Default nil (never).
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// When the database compacts itself in the background (``/StrataStorage/CompactionPolicy``). Default
        /// ``/StrataStorage/CompactionPolicy/default``; `.manual` leaves it to ``Database/compact()``.
        public var compaction: CompactionPolicy = .default
        /// The most versions that may be kept alive at once (the latest and those frozen
        /// databases, objects and results read), as Realm's `maximumNumberOfActiveVersions`: a
        /// write that would make more throws ``/StrataStorage/StrataError`` `.tooManyActiveVersions`. Old
        /// versions keep the files they read from being compacted away. Default nil (no limit).
        public var maximumNumberOfActiveVersions: UInt?
        /// Open from the hint files beside the sealed segments instead of reading every record
        /// (Bitcask's hint files): an open of a million objects then takes tens of milliseconds
        /// rather than a scan of the whole log, and a close seals a large active segment so that
        /// the next open finds a hint for it too. The trade: records of sealed segments are not
        /// read at open, so damage in them is found when an object is read (``/StrataStorage/StrataError``
        /// `.corruption`) or by `strata verify`, not at open. A missing or stale hint is never an
        /// error (its segment is read instead). Encrypted databases have no hints. Default
        /// `false`.
        public var openWithHints = false
        /// The 64-byte key the database is encrypted with (Realm's `encryptionKey`), or nil for
        /// a database that is not encrypted. Default nil. A database created with a key can be
        /// opened only with it: a wrong key, no key, a key for a database that is not encrypted,
        /// or a key that is not 64 bytes throws ``/StrataStorage/StrataError`` `.invalidKey` at open.
        public var encryptionKey: Data?
        /// Storage-engine options for tests (`@_spi(Testing)`) and the `strata` tool
        /// (`@_spi(Tooling)`): the file system (an in-memory or fault-injecting one), the segment
        /// size, compression. Their `durability` is not used
        /// (``durability`` is).
        @_spi(Testing) @_spi(Tooling) public var storageOptions = Store.Options()

        /// Makes a configuration; without a directory, the database is
        /// ``defaultDirectory``.
        public init(
            directory: URL = Configuration.defaultDirectory, objectTypes: [ObjectBase.Type], schemaVersion: UInt64 = 0,
            durability: Durability = .full
        ) {
            self.directory = directory
            self.objectTypes = objectTypes
            self.schemaVersion = schemaVersion
            self.durability = durability
        }

        /// Makes a configuration of a database kept in memory under `inMemoryIdentifier` (see
        /// ``inMemoryIdentifier``).
        public init(inMemoryIdentifier: String, objectTypes: [ObjectBase.Type], schemaVersion: UInt64 = 0) {
            self.init(directory: URL(fileURLWithPath: "/in-memory"), objectTypes: objectTypes, schemaVersion: schemaVersion)
            self.inMemoryIdentifier = inMemoryIdentifier
        }
    }

    /// The configuration the database was opened with.
    public let configuration: Configuration
    /// Whether this is an immutable view of one version (see ``freeze()``).
    public let isFrozen: Bool

    let shared: SharedStore
    /// `shared.store`, one load closer.
    private let store: Store
    let schemas: SchemaSet
    /// The version a live database reads (until it advances: see `advance()`) or a frozen one
    /// is pinned to. Nil only while a commit runs (see `commitWrite`). It and
    /// `pinnedSequence` skip dynamic exclusivity checks, as `version` does: a live database is
    /// used by one thread at a time, a frozen one never changes them, and every property read
    /// looks at them.
    @exclusivity(unchecked) private var pinned: Snapshot?
    var snapshot: Snapshot {
        get { pinned.unsafelyUnwrapped }
        set {
            pinned = newValue
            pinnedSequence = newValue.sequence
        }
    }
    /// The sequence of `snapshot`, kept beside it so that checking for a newer commit does not
    /// copy the snapshot.
    @exclusivity(unchecked) private var pinnedSequence: UInt64 = 0
    /// `store.compactionCount` when `snapshot` was last taken: after a compaction a live
    /// database that has not advanced since swaps its snapshot for the compacted one of the same
    /// commit, so that the replaced files go as soon as no frozen view needs them.
    @exclusivity(unchecked) private var pinnedCompactions: UInt64 = 0
    /// Set by `invalidate()`: the next read advances to the newest commit.
    @exclusivity(unchecked) private var readEnded = false
    /// How many times `invalidate()` ended a read: an object read before the last one is
    /// invalidated (`ObjectState.epoch`).
    @exclusivity(unchecked) private(set) var readEpoch = 0
    /// What this live database tells its own observers and how it autorefreshes (nil when
    /// frozen).
    let events: DatabaseEvents?
    @exclusivity(unchecked) var transaction: WriteTransaction?
    /// The unmanaged embedded objects the open write stored, by the identity they were stored
    /// with: they become managed views of what was stored once their parent's field is set
    /// (`adoptEmbeddedObjects`). Emptied when the write ends.
    @exclusivity(unchecked) var pendingEmbedded: [UInt64: EmbeddedObject] = [:]
    /// The last write's tables, emptied, for the next write to fill.
    @exclusivity(unchecked) var spareWriteTables: WriteTransaction.Tables?
    /// The schema of the class last added (writes only: a live database is used by one thread).
    /// (Kept alive by `schemas`.)
    @exclusivity(unchecked) unowned(unsafe) var lastAddedSchema: ObjectSchema?
    /// Set while a change notification is computed and delivered through this (live) database
    /// on its delivery queue: reads stay at the version the change was computed for, as a Realm
    /// does not advance during a notification callback (see `ChangeObserver`).
    @exclusivity(unchecked) var holdsVersion = false
    /// The number of writes begun on this database.
    var writeCount = 0
    /// The serial numbers of the writes that were cancelled after adding objects; those
    /// objects are invalid. (Empty unless a write was rolled back.)
    var cancelledWrites: Set<Int> = []

    /// Whether write number `serial` was cancelled.
    func wasCancelled(write serial: Int) -> Bool {
        !cancelledWrites.isEmpty && cancelledWrites.contains(serial)
    }
    /// The last commit's batch, kept for its buffers' capacity.
    @exclusivity(unchecked) var reusableBatch = WriteBatch()
    /// The first damage a read found (see `readFailure`), shared by the threads reading a
    /// frozen database.
    let readFailures = Locked<StrataError?>(nil)
    /// The class columns queries read at the current version (see `ClassColumns`), by class id.
    let columnCache = Locked<[UInt32: ClassColumns]>([:])
    /// By class id: the plain properties objects handed out by a walk over the class were read
    /// for that their walk's table had no column of; the next walk's table decodes them.
    let columnDemand = Locked<[UInt32: Set<Int>]>([:])
    /// Changes whenever what a read may see changes: a new commit, a change in a transaction.
    @exclusivity(unchecked) private(set) var version = 0

    /// Opens the database of `configuration`, autorefreshing on `actor`; a stored schema that
    /// needs a migration is rewritten by `migration` (the open of Database+Open.swift makes it
    /// from the configuration's migration block).
    convenience init(
        opening configuration: Configuration, migrating migration: any SchemaMigrating, autorefreshingOn actor: (any Actor)?
    ) throws {
        let schemas = try SchemaSet(configuration.objectTypes)
        var options = configuration.storageOptions
        if configuration.readOnly { options.readOnly = true }
        options.compaction = configuration.compaction
        options.openWithHints = options.openWithHints || configuration.openWithHints
        if let key = configuration.encryptionKey { options.encryptionKey = Array(key) }
        let directory = try configuration.prepareStore(&options)
        let shared = try SharedStore.open(directory: directory, options: options)
        let firstOpen = !shared.isBound.withLock { $0 }
        try shared.bind(
            schemas, schemaVersion: configuration.schemaVersion, requireStoredSchema: configuration.readOnly,
            migration: .init(migration: migration, deletesDatabaseIfNeeded: configuration.deleteDatabaseIfMigrationNeeded))
        if firstOpen, !options.readOnly, let shouldCompact = configuration.shouldCompactOnLaunch {
            let statistics = shared.store.statistics()
            if shouldCompact(statistics.totalBytes, statistics.liveBytes) { _ = try shared.store.compact() }
        }
        self.init(
            configuration: configuration, shared: shared, schemas: schemas, snapshot: shared.store.snapshot(), frozen: false,
            autorefreshingOn: actor)
    }

    init(
        configuration: Configuration, shared: SharedStore, schemas: SchemaSet, snapshot: Snapshot, frozen: Bool,
        autorefreshingOn actor: (any Actor)? = nil
    ) {
        self.configuration = configuration
        self.shared = shared
        self.store = shared.store
        self.schemas = schemas
        self.pinned = snapshot
        self.pinnedSequence = snapshot.sequence
        self.isFrozen = frozen
        self.pinnedCompactions = shared.store.compactionCount
        self.events = frozen ? nil : DatabaseEvents(notifier: shared.notifier, actor: actor)
        if frozen { shared.pin(snapshot.sequence) }
        events?.attach(self)
    }

    deinit {
        if isFrozen { shared.unpin(pinnedSequence) }
        // A write still open when the last reference goes (the code that began it returned or
        // threw without ending it) gives up the writer lock, so other writers do not wait for
        // ever. Its changes are discarded, as `cancelWrite()` would.
        if transaction != nil { shared.endWrite() }
    }

    /// An immutable view of the version this database reads (inside a write: the version the
    /// write began on), safe to use from any thread. The result is `sending`: a new `Database`
    /// no one else refers to, which may be handed to another task.
    /// - Complexity: O(1).
    public func freeze() -> sending Database {
        if !isFrozen { _ = readVersion() }
        let version = isFrozen ? snapshot : transaction?.base ?? snapshot
        return Database(configuration: configuration, shared: shared, schemas: schemas, snapshot: version, frozen: true)
    }

    /// A live database for the same files, reading their newest commit (the same database when
    /// it is live already). It is not isolated to an actor: it advances at its writes,
    /// ``refresh()`` and ``invalidate()``.
    public func thaw() -> Database {
        guard isFrozen else { return self }
        return Database(configuration: configuration, shared: shared, schemas: schemas, snapshot: shared.store.snapshot(), frozen: false)
    }

    /// Whether a write transaction is open on this database.
    public var isInWriteTransaction: Bool { transaction != nil }

    /// Rewrites the database's segments without their dead records (overwritten and deleted
    /// objects), the active one included (it is sealed first and a new one started), online: readers, frozen views and writers keep working meanwhile, and a
    /// frozen view keeps reading the files it needs until it is released. The replaced files
    /// are removed as soon as nothing reads them: at once when no frozen view (or other live
    /// database not read since) holds them, else when the last of those goes or reads again.
    /// This database lets go of them before returning, unless a write is open on it.
    /// - Returns: what the compaction did (segments and bytes before and after).
    /// - Throws: ``/StrataStorage/StrataError`` `.io` when writing the new segments fails (the database is left
    ///   as it was), `.closed` when the store refuses writes.
    @discardableResult
    public func compact() throws -> CompactionReport {
        let report = try shared.store.compact()
        _ = readVersion()
        return report
    }

    /// The version stamp reads cache against. A live database stays at its version, except
    /// that the first read after `invalidate()` advances it, and after a compaction it swaps its
    /// snapshot for the compacted one of the same commit.
    func readVersion() -> Int {
        if !isFrozen, readEnded || store.compactionCount != pinnedCompactions {
            beginReadIfNeeded()
        }
        return version
    }

    /// The slow path of `readVersion()`.
    private func beginReadIfNeeded() {
        guard !holdsVersion, transaction == nil else { return }
        if readEnded {
            advance()
            return
        }
        // Read before the snapshot: a compaction published in between only costs one more swap
        // later.
        pinnedCompactions = store.compactionCount
        let compacted = shared.store.snapshot()
        // A newer commit is not read until the database advances: the old files stay until then.
        guard compacted.sequence == pinnedSequence else { return }
        snapshot = compacted
        version += 1
    }

    /// Moves a live database to the newest commit, unless a write is open on it or a
    /// notification is being delivered through it. Returns whether the commit read changed.
    @discardableResult
    func advance() -> Bool {
        guard !isFrozen, !holdsVersion, transaction == nil else { return false }
        return readNewest()
    }

    /// Makes the store's newest snapshot the one the database reads, and starts a new read (one
    /// `invalidate()` ended is over). Returns whether the commit read changed.
    func readNewest() -> Bool {
        let ended = readEnded
        readEnded = false
        // Counted before the snapshot is taken: a compaction published in between costs one
        // more swap later.
        let compactions = store.compactionCount
        let compacted = compactions != pinnedCompactions
        pinnedCompactions = compactions
        let newest = shared.store.snapshot()
        let moved = pinned == nil || newest.sequence != pinnedSequence
        if moved || ended || compacted {
            snapshot = newest
            version += 1
        }
        return moved
    }

    /// Ends the read (see ``invalidate()``).
    func endRead() {
        readEnded = true
        readEpoch += 1
        version += 1
    }

    func bumpVersion() { version += 1 }

    /// Lets go of the pinned snapshot while a commit publishes: when nothing else holds the
    /// store's index, the commit then updates it in place instead of copying every index node
    /// it touches. REQUIRES: a write is being committed; `snapshot` is set again right after.
    func releasePinnedSnapshot() { pinned = nil }

    /// The sequence of the commit the database reads (inside a write: the one it began on).
    var readSequence: UInt64 { pinnedSequence }

    /// The version stamp without refreshing (the caller just refreshed).
    var currentVersion: Int { version }
}
