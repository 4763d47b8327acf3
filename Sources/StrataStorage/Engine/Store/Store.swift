import Synchronization

/// A log-structured key-value store: the engine under Strata's object layer.
///
/// A store is a directory: a `LOCK` file, a `MANIFEST` naming the live segments, and the
/// segments themselves (`000001.seg`, …), append-only files of checksummed records. Writes are
/// batched into atomic transactions (``commit(_:durability:)``); reads go through immutable
/// ``Snapshot``s taken in O(1) (``snapshot()``). Opening a store recovers it: it rebuilds the
/// in-memory index from the log, ends the log at a torn tail, ignores transactions that never
/// committed, and refuses (with `.corruption`, naming file and offset) damage a crash cannot
/// explain.
///
/// ```swift
/// let store = try Store(directory: "/var/lib/app/db")
/// var batch = WriteBatch()
/// batch.put(Array("hello".utf8), forKey: StorageKey("greeting"), in: Keyspace(1))
/// try store.commit(batch)
/// let value = try store.snapshot().value(for: StorageKey("greeting"), in: Keyspace(1))
/// ```
///
/// Thread safety: a `Store` is `Sendable`. Any number of threads may commit at once (their
/// batches are serialized, and share one `fsync` when they wait together) and take snapshots
/// at once. Taking a snapshot waits at most for the in-memory publication of one commit group
/// (or one step of a compaction's publication); reading from a snapshot never waits for
/// anything. ``compact()-2quz9`` runs beside commits and readers (see there).
///
/// Lock order: `compaction` → `writer` → `published` → `fence` (taken only under the thread
/// sanitizer), and `follow` → `published`; `commitQueue`'s lock is never held while taking
/// another.
///
/// One process at a time may open a directory for writing: the `LOCK` file is held with
/// `flock`, and a second open fails at once with `.locked`. Any number of processes may open it
/// read-only (``Options/readOnly``) beside that writer; ``refresh()`` catches such a store up
/// with the writer's commits.
public final class Store: Sendable {
    /// The name of the file whose lock marks the one read-write opener.
    static let lockFileName = "LOCK"
    /// The directory that holds the store's files.
    public let directory: String
    /// The options the store was opened with.
    public let options: Options
    /// What recovery did when the store was opened (torn tails cut, uncommitted transactions
    /// ignored, leftover files removed, salvaged corruption).
    public let recoveryEvents: [RecoveryEvent]

    let fileSystem: any FileSystem
    /// The key made of ``Options/encryptionKey``; nil for a store that is not encrypted.
    let key: StoreKey?
    /// Nil in the background compactor's view of the store (`init(sharingStateOf:)`), which
    /// owns neither the lock nor the compactor.
    private let directoryLock: (any FileLock)?
    /// Unlinks the files of segments that compaction replaced (nil when read-only).
    let remover: SegmentRemover?
    /// Publishes where the decided log ends, for followers (nil when read-only).
    let committedEnd: CommittedEndPublisher?
    let published: Locked<PublishedState>
    /// The published sequence and compaction count, shared with the compactor's view.
    private let counters: PublishedCounters
    let writer: Locked<WriterState>
    let commitQueue: CommitQueue
    /// Held for the whole of one ``compact()-2quz9``, so compactions run one at a time.
    let compaction: Locked<Void>
    /// Where a read-only store stopped reading the log; held for the whole of one
    /// ``refresh()`` (Store+Refresh.swift). Unused by a writable store.
    let follow: Locked<FollowPosition>
    /// Shows the thread sanitizer that a dropped snapshot's reads come before in-place
    /// mutations of the published state: every mutation of the index or the segment map runs
    /// in it (inside `published`), and so does every `SnapshotStorage.deinit`.
    let fence: SanitizerFence
    /// The background compactor: nil when read-only, with ``CompactionPolicy/manual``, and in
    /// the compactor's own view of the store.
    let backgroundCompactor: BackgroundCompactor?
    /// Whether this object is the store its opener holds (false: the compactor's view), whose
    /// `deinit` stops the compactor and releases the directory.
    private let ownsDirectory: Bool

    /// What snapshots are made from: guarded by `published`.
    struct PublishedState: Sendable {
        var index: KeyIndex
        var sequence: UInt64
        var segments: SegmentMap
        /// Records and bytes per live segment, so compaction can take out what it replaced.
        var tallies: [UInt32: SegmentTally]
        var records: Int
        var bytes: Int
    }

    /// The append side: guarded by `writer`, held by one commit leader at a time.
    struct WriterState: Sendable {
        var active: SegmentFile?
        /// The MANIFEST's list: compacted segments first, then log segments, the active last.
        var segmentOrder: [UInt32]
        /// The listed segments that are compacted (the MANIFEST is version 2 while any is).
        var compactedSegments: Set<UInt32>
        /// The number the next new segment (rolled or compacted) gets: above every number
        /// listed or seen in the directory, so a number is never reused while this store is
        /// open. Wider than a segment number so that it cannot overflow.
        var nextSegmentNumber: UInt64
        var offset: Int
        var syncedOffset: Int
        var nextSequence: UInt64
        var buffer: [UInt8] = []
        var recordSpans: [(offset: Int, length: Int)] = []
        var failure: StrataError?
        var isClosed = false
        /// Why ``close()`` failed; a later close throws it again.
        var closeFailure: StrataError?
    }

    /// Opens the store in `directory`, creating it when it does not exist (unless read-only),
    /// and recovers it.
    ///
    /// - Throws: ``StrataError`` with code
    ///   - `.locked` when another process (or another open `Store`) has it open for writing;
    ///   - `.corruption` (naming the file and offset) for damage a crash cannot explain;
    ///   - `.unsupportedFormat` for files of a newer format version;
    ///   - `.invalidKey` when ``Options/encryptionKey`` is wrong, missing for an encrypted store,
    ///     given for a plain one, or not 64 bytes long (the message says which);
    ///   - `.notFound` when opening read-only a directory that holds no store;
    ///   - `.invalidArgument` for options out of range; `.io` when the file system fails.
    /// - Complexity: O(n) in the size of the log.
    public init(directory: String, options: Options = Options()) throws {
        try options.validate()
        var options = options
        if options.readOnly, let posix = options.fileSystem as? PosixFileSystem, posix.mappedReads {
            // No lock: a writer in another process may truncate a segment under this store,
            // which would make a mapped read fault (docs/design-storage.md, "Reads and mmap").
            options.fileSystem = PosixFileSystem(mappedReads: false)
        }
        self.directory = directory
        self.options = options
        self.fileSystem = options.fileSystem
        commitQueue = CommitQueue()
        compaction = Locked(())
        fence = SanitizerFence()
        self.key = try options.storeKey()
        if options.readOnly {
            directoryLock = nil
            remover = nil
        } else {
            try Self.createDirectoryDurably(directory, fileSystem: fileSystem)
            directoryLock = try fileSystem.lock(joinPath(directory, Self.lockFileName))
            remover = SegmentRemover(fileSystem: fileSystem)
        }
        let recovered = try Recovery(directory: directory, options: options, key: key, remover: remover).run()
        recoveryEvents = recovered.events
        published = Locked(PublishedState(
            index: recovered.index, sequence: recovered.lastSequence,
            segments: recovered.segments, tallies: recovered.tallies,
            records: recovered.records, bytes: recovered.bytes))
        writer = Locked(WriterState(
            active: options.readOnly ? nil : recovered.segments[recovered.segmentOrder.last ?? 0],
            segmentOrder: recovered.segmentOrder, compactedSegments: recovered.compactedSegments,
            nextSegmentNumber: recovered.nextSegmentNumber, offset: recovered.activeEnd,
            syncedOffset: recovered.activeEnd, nextSequence: recovered.lastSequence + 1))
        follow = Locked(FollowPosition(recovered))
        counters = PublishedCounters(sequence: recovered.lastSequence)
        ownsDirectory = true
        if options.readOnly {
            committedEnd = nil
        } else {
            // Before any group is written: followers read up to here, and no further.
            let publisher = try CommittedEndPublisher(directory: directory, fileSystem: fileSystem)
            try publisher.publish(segment: recovered.segmentOrder.last ?? 0, end: recovered.activeEnd)
            committedEnd = publisher
        }
        backgroundCompactor = options.readOnly || options.compaction == .manual ? nil : BackgroundCompactor()
        do {
            try backgroundCompactor?.start(for: Store(sharingStateOf: self))
        } catch {
            // Not fatal: the store works without it, and the failure is reported.
            options.onBackgroundCompactionFailure?(StrataError.converting(error))
        }
    }

    /// The background compactor's view of `store`: the same state (every field is a reference
    /// to it, or a constant), without the directory lock or the compactor. The compactor's
    /// thread holds it for as long as it runs, so a run never holds the store its opener holds:
    /// dropping that one runs its `deinit` at once, on the dropping thread, which stops the run
    /// at its next batch and waits for it (this view, and everything the run uses, stays alive
    /// meanwhile) before it releases `LOCK`.
    private init(sharingStateOf store: Store) {
        directory = store.directory
        options = store.options
        recoveryEvents = store.recoveryEvents
        fileSystem = store.fileSystem
        key = store.key
        directoryLock = nil
        remover = store.remover
        committedEnd = store.committedEnd
        published = store.published
        counters = store.counters
        writer = store.writer
        commitQueue = store.commitQueue
        compaction = store.compaction
        follow = store.follow
        fence = store.fence
        backgroundCompactor = nil
        ownsDirectory = false
    }

    deinit {
        guard ownsDirectory else { return }
        backgroundCompactor?.stop()
        remover?.disable()
        directoryLock?.unlock()
    }

    /// An immutable view of the store as of the latest commit.
    /// - Complexity: O(1).
    public func snapshot() -> Snapshot {
        let readOptions = Snapshot.ReadOptions(verifyChecksums: options.verifyChecksumsOnRead)
        return published.withLock { state in
            Snapshot(
                storage: SnapshotStorage(index: state.index, segments: state.segments, fence: fence),
                options: readOptions, sequence: state.sequence)
        }
    }

    /// The sequence number of the latest commit (0 for an empty store).
    public var sequence: UInt64 { counters.sequence.load(ordering: .acquiring) }

    /// How many compactions (by ``compact()-2quz9`` or the background compactor) this store has
    /// published since it was opened. A holder of a snapshot taken when it was lower holds
    /// segments a compaction replaced, whose files go only when the last such snapshot does:
    /// the object layer takes a new snapshot when this changes, as it does for ``sequence``.
    ///
    /// Thread safety: may be read from any thread (an atomic load).
    /// - Complexity: O(1).
    public var compactionCount: UInt64 { counters.compactions.load(ordering: .acquiring) }

    /// Records a published compaction. REQUIRES: the published lock is held, and the replaced
    /// segments are out of the published map.
    func noteCompactionPublished() {
        counters.compactions.add(1, ordering: .releasing)
    }

    /// Records a new published sequence. REQUIRES: the published lock is held.
    func notePublished(_ sequence: UInt64) {
        counters.sequence.store(sequence, ordering: .releasing)
    }

    /// The failure that made the store refuse writes (a failed `fsync`, a failed segment
    /// roll), or nil while it accepts them.
    public var writeFailure: StrataError? { writer.withLock { $0.failure } }

    /// Syncs what was committed with `.none` durability and stops accepting commits. Snapshots
    /// taken before keep working. The directory lock is released even when the sync fails.
    ///
    /// With ``Options/openWithHints``, a close also seals the active segment and writes its hint
    /// when the segment holds at least an eighth of ``Options/segmentSize`` (unencrypted stores
    /// only), so that the next open reads hints for all but a small active segment.
    ///
    /// Segments that a compaction replaced and that a snapshot still reads are not unlinked
    /// after the store closes (another process may own the directory by then); the next
    /// read-write open removes them.
    /// - Throws: ``StrataError`` `.io` when the final sync fails; the failure is sticky: every
    ///   later `close()` throws it again and ``writeFailure`` reports it. Closing a store that
    ///   closed cleanly again is harmless.
    public func close() throws {
        // First, and outside every lock: a running compaction takes the writer lock.
        backgroundCompactor?.stop()
        let failure = writer.withLock { state -> StrataError? in
            guard !state.isClosed else { return state.closeFailure }
            state.isClosed = true
            guard let active = state.active, state.failure == nil else { return nil }
            do {
                if sealsActiveSegmentOnClose(state) {
                    try roll(&state)
                } else if state.offset > state.syncedOffset {
                    try active.file.sync()
                    state.syncedOffset = state.offset
                }
                return nil
            } catch {
                let failure = StrataError.converting(error)
                state.failure = failure
                state.closeFailure = failure
                return failure
            }
        }
        remover?.disable()
        directoryLock?.unlock()
        if let failure { throw failure }
    }

    /// Whether ``close()`` seals the active segment (see there). REQUIRES: `writer` is held.
    private func sealsActiveSegmentOnClose(_ state: WriterState) -> Bool {
        options.openWithHints && key == nil && !options.readOnly
            && state.offset - SegmentHeader.size >= options.segmentSize / 8
    }
}

/// The store's published sequence and compaction count, as atomics: shared by the store and
/// the background compactor's view of it.
final class PublishedCounters: Sendable {
    /// A copy of `published.sequence`, written (under the published lock) after each
    /// publication, so `sequence` — which the object layer reads on every property read to
    /// see whether a newer commit exists — costs an atomic load, not a lock.
    let sequence: Atomic<UInt64>
    /// Compactions published since the store was opened (see ``Store/compactionCount``):
    /// bumped under the published lock once a compaction has dropped the segments it replaced.
    let compactions = Atomic<UInt64>(0)

    init(sequence: UInt64) { self.sequence = Atomic(sequence) }
}

/// How many records and bytes one segment holds (dead ones included).
struct SegmentTally: Sendable, Hashable {
    var records = 0
    var bytes = 0

    mutating func add(records: Int, bytes: Int) {
        self.records += records
        self.bytes += bytes
    }
}
