import StrataStorage

/// The changes of an open write: object fields by key (nil for a deletion), in the order they
/// were first touched, over the snapshot the write started from.
///
/// Used by the writing thread only.
final class WriteTransaction {
    enum Change {
        /// The object's fields, in property order.
        case put([FieldValue])
        case delete
    }

    /// The snapshot the write started from; released (see `releaseBase`) while it commits.
    private var pinnedBase: Snapshot?
    var base: Snapshot { pinnedBase.unsafelyUnwrapped }
    /// The changes in the order their objects were first touched. (The hot tables of the
    /// write skip dynamic exclusivity checks: only this class's methods touch them, and none
    /// calls out while it holds one.)
    @exclusivity(unchecked) private var changes: [(key: ObjectKey, change: Change)] = []
    /// The position in `changes` of each changed object's entry.
    @exclusivity(unchecked) private var positions: [ObjectKey: Int] = [:]
    /// See `baseEntry(for:)`; no class is kept while `cachedBaseClassID` is nil.
    private var cachedBaseClassID: UInt32?
    private var cachedBaseEntries = Snapshot.Entries.empty
    /// What the objects this write added hold on to: marked cancelled if it rolls back, which
    /// invalidates them all at once (the write keeps no list of them, so an added object the
    /// caller drops is freed at once).
    let scope = WriteScope()
    /// The first error a property setter could not throw; the write fails with it.
    var deferredError: StrataError?
    /// Per linked-to object: links into it this write added (true) or removed (false).
    var backlinkChanges: [ObjectKey: [Backlink: Bool]] = [:]
    /// Per secondary-index entry: object keys this write added (true) or removed (false).
    var indexChanges: [StorageKey: [StorageKey: Bool]] = [:]

    /// A transaction over `base`, with room for `expectedChanges` changed objects (a hint: the
    /// size of the previous write, so that a loop of similar writes does not regrow its tables).
    init(base: Snapshot, expectedChanges: Int = 0) {
        pinnedBase = base
        let capacity = min(expectedChanges, 1 << 20)
        changes.reserveCapacity(capacity)
        positions.reserveCapacity(capacity)
    }

    /// The number of objects changed so far.
    private(set) var changeCount = 0

    /// Drops the base snapshot once the commit batch is built, so the store's index is not
    /// shared while the commit updates it.
    func releaseBase() {
        pinnedBase = nil
        cachedBaseClassID = nil
        cachedBaseEntries = .empty
    }

    /// Keeps the first error a setter could not throw; the write fails with it at commit.
    func `defer`(_ error: any Error, context: String) {
        guard deferredError == nil else { return }
        if let error = error as? StrataError {
            deferredError = StrataError(error.code, "\(context): \(error.message)")
        } else {
            deferredError = StrataError(.invalidValue, "\(context): \(error)")
        }
    }

    /// Where a key's change goes, and the change this write already holds for it (nil when
    /// it has not touched the key).
    struct Reservation {
        let position: Int
        let previous: Change?
    }

    /// Reserves the place of `key`'s change (its current one, or a new one at the end) with one
    /// lookup. Follow it with `store(_:at:for:)` or `abandon(_:for:)` before anything else
    /// changes the write.
    func reserve(_ key: ObjectKey) -> Reservation {
        let end = changes.count
        var position = end
        func read(_ stored: inout Int) { position = stored }
        read(&positions[key, default: end])  // inserts `end` when the key is new
        return Reservation(position: position, previous: position == end ? nil : changes[position].change)
    }

    /// Stores `key`'s change in its reserved place.
    func store(_ change: __owned Change, at reservation: Reservation, for key: __owned ObjectKey) {
        if reservation.position == changes.count {
            changes.append((key, change))
            changeCount += 1
        } else {
            changes[reservation.position].change = change
        }
    }

    /// Gives up a reservation without a change.
    func abandon(_ reservation: Reservation, for key: ObjectKey) {
        if reservation.position == changes.count { positions[key] = nil }
    }

    /// The entry of `key` in the base snapshot, or nil. The entries of the class last asked
    /// for are kept, so a run of lookups in one class looks the class up once.
    func baseEntry(for key: ObjectKey) -> Snapshot.Entry? {
        if cachedBaseClassID != key.classID {
            cachedBaseEntries = base.entries(in: Keyspace(key.classID))
            cachedBaseClassID = key.classID
        }
        return cachedBaseEntries.entry(for: key.key)
    }

    func change(for key: ObjectKey) -> Change? {
        // (A reserved key has no change yet: its position is the end.)
        guard let position = positions[key], position < changes.count else { return nil }
        return changes[position].change
    }

    /// Keys of one class added in this write (not in the base snapshot).
    func addedKeys(classID: UInt32) -> [ObjectKey] {
        changes.compactMap { entry in
            guard entry.key.classID == classID, case .put = entry.change,
                  !base.contains(entry.key.key, in: Keyspace(classID))
            else { return nil }
            return entry.key
        }
    }

    /// Moves every change into `batch` as the operation that applies it; `schemas` gives each
    /// class's schema. The write holds no changes afterwards (`changeCount` stays): each
    /// object's fields are freed as soon as they are encoded, while they are still in cache.
    func moveChanges(to batch: inout WriteBatch, schemas: SchemaSet) {
        var schema: ObjectSchema?
        var drained: [(key: ObjectKey, change: Change)] = []
        swap(&drained, &changes)
        positions = [:]
        for index in drained.indices {
            let key = drained[index].key
            switch drained[index].change {
            case .put(let fields):
                if schema?.classID != key.classID { schema = schemas.byClassID[key.classID] }
                let schema = schema!
                batch.put(forKey: key.key, in: Keyspace(key.classID)) { bytes in
                    RecordCodec.encode(fields, schema: schema, appendingTo: &bytes)
                }
                drained[index].change = .delete  // frees the fields now
            case .delete:
                batch.delete(key.key, in: Keyspace(key.classID))
            }
        }
    }
}

/// The mark an open write leaves on the objects it adds: cancelled when the write rolls back.
///
/// Thread safety: read and set by the database's writing thread (and by the objects it
/// manages, which are confined to it).
final class WriteScope {
    @exclusivity(unchecked) var isCancelled = false
}
