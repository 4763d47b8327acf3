import StrataStorage

/// The changes of an open write: object fields by key (nil for a deletion), in the order they
/// were first touched, over the snapshot the write started from.
///
/// Used by the writing thread only.
final class WriteTransaction {
    enum Change {
        /// The object's fields, in property order.
        case put([FieldValue])
        /// The object's record, encoded when it was added (in `records`, at this range): an
        /// object whose fields nothing in the write needs (no links; its index entries are
        /// noted when it is added) is stored without keeping them.
        case record(Range<Int>)
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
    @exclusivity(unchecked) private var positions = ChangePositions()
    /// The records of `.record` changes, one after another. (A record replaced by a later
    /// change of its object stays until the write ends: each object is added once.)
    private let records: ByteBuffer

    /// The tables a write fills, handed from one write to the next (emptied, see
    /// ``WriteTransaction/takeTables()``). A loop of similar writes then reuses their memory:
    /// tables allocated afresh for every write of thousands of objects are large enough to be
    /// mapped from, and returned to, the kernel each time, and every page of them is faulted
    /// in again.
    struct Tables {
        fileprivate var changes: [(key: ObjectKey, change: Change)] = []
        fileprivate var positions = ChangePositions()
        fileprivate var indexChanges: [StorageKey: Bool] = [:]
        fileprivate let records: ByteBuffer

        /// Empty tables.
        init() { records = ByteBuffer() }

        fileprivate init(records: ByteBuffer) { self.records = records }

        /// The most objects a write may change for its tables (and its commit's batch) to be
        /// kept for the next write.
        static let largestKept = 100_000
        /// The most bytes of records the kept tables may hold on to.
        static let largestKeptRecords = 64 << 20
    }
    /// See `baseEntry(for:)`; no class is kept while `cachedBaseClassID` is nil.
    private var cachedBaseClassID: UInt32?
    private var cachedBaseEntries = Snapshot.Entries.empty
    /// The greatest key of `cachedBaseEntries` (nil when it is empty): a key above it is not
    /// in the base without a lookup, as with keys that grow (numbers counting up, ObjectIds).
    private var cachedBaseLastKey: StorageKey?
    /// The number of this write among the database's writes (from 1): the objects it adds
    /// note it, and a rollback lists it among the database's cancelled writes, which
    /// invalidates them all at once. (The write keeps no list of them, so an added object the
    /// caller drops is freed at once.)
    let serial: Int
    /// Whether the write added an object (only then does a rollback list its serial).
    var addedObjects = false
    /// What an object being added or created does with the unmanaged objects it links to
    /// whose primary key is stored already (`Database.withLinkedUpdatePolicy`).
    var linkedUpdatePolicy: Database.UpdatePolicy = .error
    /// How many adds of linked objects are running inside each other (see Database+LinkedAdds).
    var linkedAddDepth = 0
    /// Unmanaged linked objects found deeper than `Database.maxLinkedAddDepth`: their keys are
    /// stored already, their records are added when the outermost add ends.
    var deferredAdds: [Database.DeferredAdd] = []
    /// Whether an object made from a value (`ValueInput.givenProperties`) that updates a stored
    /// object writes only the properties it was given (inside `Database.create`).
    var mergesGivenProperties = false
    /// The first error a property setter could not throw; the write fails with it.
    var deferredError: StrataError?
    /// Per linked-to object: links into it this write added (true) or removed (false).
    var backlinkChanges: [ObjectKey: [Backlink: Bool]] = [:]
    /// Secondary-index entries this write adds (true) or removes (false), by entry key, except
    /// shared ones (`IndexKeyEncoding.mayBeShared`).
    var indexChanges: [StorageKey: Bool] = [:]
    /// Per shared secondary-index entry: the object keys this write added (true) or removed.
    var sharedIndexChanges: [StorageKey: [StorageKey: Bool]] = [:]
    /// Per object a collection changed in place (`Database.editField`), per property index:
    /// what the write keeps to make the next in-place change of the field cheap. Storing any
    /// other change of the object drops its entry.
    var fieldCaches: [ObjectKey: [Int: FieldCache]] = [:]
    /// Elements of collection fields the write's changes visited to keep backlinks and sets in
    /// step: links walked, map keys compared, set members hashed or compared. It measures the
    /// cost of a change (tests read it); it decides nothing.
    var visitedElements = 0

    /// Transaction number `serial` over `base`, filling `tables` (empty; the previous write's,
    /// so that a loop of similar writes does not regrow them).
    init(base: Snapshot, serial: Int, tables: consuming Tables = Tables()) {
        pinnedBase = base
        self.serial = serial
        records = tables.records
        swap(&changes, &tables.changes)
        swap(&positions, &tables.positions)
        swap(&indexChanges, &tables.indexChanges)
    }

    /// Empties the write's tables (freeing what its changes hold) and hands them over for the
    /// next write; nil when the write was too large for its tables to be worth keeping. Call
    /// it once the write has ended.
    func takeTables() -> Tables? {
        guard changeCount <= Tables.largestKept, records.capacity <= Tables.largestKeptRecords else { return nil }
        changes.removeAll(keepingCapacity: true)
        positions.removeAll()
        records.removeAll()
        indexChanges.removeAll(keepingCapacity: true)
        var tables = Tables(records: records)
        swap(&tables.changes, &changes)
        swap(&tables.positions, &positions)
        swap(&tables.indexChanges, &indexChanges)
        return tables
    }

    /// The number of objects changed so far.
    private(set) var changeCount = 0

    /// Drops the base snapshot once the commit batch is built, so the store's index is not
    /// shared while the commit updates it.
    func releaseBase() {
        pinnedBase = nil
        cachedBaseClassID = nil
        cachedBaseEntries = .empty
        cachedBaseLastKey = nil
    }

    /// Keeps the first error a setter could not throw; the write fails with it at commit.
    func `defer`(_ error: any Error, context: String) {
        guard deferredError == nil else { return }
        deferredError = .inContext(context, error)
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
        let position = positions.position(of: key, insertingIfAbsent: end)
        return Reservation(position: position, previous: position == end ? nil : changes[position].change)
    }

    /// Stores `key`'s change in its reserved place. Unless `keepingFieldCaches` (a change made
    /// in place, which keeps them up to date), the object's `fieldCaches` go.
    func store(
        _ change: __owned Change, at reservation: Reservation, for key: __owned ObjectKey, keepingFieldCaches: Bool = false
    ) {
        if !keepingFieldCaches, !fieldCaches.isEmpty { fieldCaches[key] = nil }
        if reservation.position == changes.count {
            changes.append((key, change))
            changeCount += 1
        } else {
            changes[reservation.position].change = change
        }
    }

    /// Stores `key`'s change in its reserved place as a record encoded from `fields` (in
    /// property order) with `schema`'s layout.
    func storeRecord(encoding fields: UnsafeBufferPointer<FieldValue>, schema: ObjectSchema, at reservation: Reservation, for key: __owned ObjectKey) {
        let start = records.count
        RecordCodec.encode(fields, schema: schema, appendingTo: records)
        store(.record(start..<records.count), at: reservation, for: key)
    }

    /// Stores `key`'s change in its reserved place as `record`, bytes in the record format.
    func storeRecord(_ record: [UInt8], at reservation: Reservation, for key: __owned ObjectKey) {
        let start = records.count
        record.withUnsafeBytes { bytes in records.append { $0.sink.write(bytes) } }
        store(.record(start..<records.count), at: reservation, for: key)
    }

    /// The bytes of a `.record` change.
    func recordBytes(_ range: Range<Int>) -> [UInt8] {
        records.withBytes(in: range) { Array($0) }
    }

    /// Stores `key`'s change in its reserved place as the record of `object`'s properties,
    /// written straight from the object with `schema`'s layout.
    /// - Throws: `.invalidValue` when a property's value cannot be stored; the write is then
    ///   as it was (the reservation still to be abandoned).
    func storeRecord(
        writingPropertiesOf object: ObjectBase, schema: ObjectSchema, context: Database,
        at reservation: Reservation, for key: __owned ObjectKey
    ) throws {
        let start = records.count
        try RecordCodec.encode(propertiesOf: object, schema: schema, context: context, appendingTo: records)
        store(.record(start..<records.count), at: reservation, for: key)
    }

    /// The fields a change gives its object (decoded from its record for a `.record`), or nil
    /// for a deletion.
    func fields(of change: Change, schema: ObjectSchema) -> [FieldValue]? {
        switch change {
        case .put(let fields): return fields
        case .record(let range):
            do {
                return try records.withBytes(in: range) { try RecordCodec.decodeFields($0, schema: schema) }
            } catch {
                preconditionFailure("\(schema.className): a record this write encoded does not decode: \(error)")
            }
        case .delete: return nil
        }
    }

    /// The fields of the `.put` change in `reservation`, taken out of the write (a deletion
    /// stands in their place until a `store` at the same reservation), so that the caller holds
    /// the only reference to them and can change them in place.
    func takeFields(at reservation: Reservation) -> [FieldValue] {
        guard reservation.position < changes.count, case .put(let fields) = changes[reservation.position].change else {
            preconditionFailure("takeFields(at:) of a change that is not a .put")
        }
        changes[reservation.position].change = .delete
        return fields
    }

    /// Gives up a reservation without a change.
    func abandon(_ reservation: Reservation, for key: ObjectKey) {
        if reservation.position == changes.count { positions.remove(key) }
    }

    /// The entry of `key` in the base snapshot, or nil. The entries of the class last asked
    /// for are kept, so a run of lookups in one class looks the class up once, with their
    /// greatest key, so a key above it needs no lookup.
    func baseEntry(for key: ObjectKey) -> Snapshot.Entry? {
        if cachedBaseClassID != key.classID {
            cachedBaseEntries = base.entries(in: Keyspace(key.classID))
            cachedBaseLastKey = cachedBaseEntries.lastKey
            cachedBaseClassID = key.classID
        }
        guard let last = cachedBaseLastKey, key.key <= last else { return nil }
        return cachedBaseEntries.entry(for: key.key)
    }

    func change(for key: ObjectKey) -> Change? {
        // (A reserved key has no change yet: its position is the end.)
        guard let position = positions.position(of: key), position < changes.count else { return nil }
        return changes[position].change
    }

    /// Keys of one class added in this write (not in the base snapshot).
    func addedKeys(classID: UInt32) -> [ObjectKey] {
        changes.compactMap { entry in
            guard entry.key.classID == classID, !entry.change.isDelete,
                  !base.contains(entry.key.key, in: Keyspace(classID))
            else { return nil }
            return entry.key
        }
    }

    /// Moves every change into `batch` as the operation that applies it; `schemas` gives each
    /// class's schema. The write holds no changes afterwards (`changeCount` stays; the tables
    /// keep their capacity): each object's fields are freed as soon as they are encoded, while
    /// they are still in cache.
    func moveChanges(to batch: inout WriteBatch, schemas: SchemaSet) {
        var schema: ObjectSchema?
        for index in changes.indices {
            let key = changes[index].key
            switch changes[index].change {
            case .put(let fields):
                if schema?.classID != key.classID { schema = schemas.byClassID[key.classID] }
                let schema = schema!
                batch.put(forKey: key.key, in: Keyspace(key.classID)) { bytes in
                    RecordCodec.encode(fields, schema: schema, appendingTo: &bytes)
                }
                changes[index].change = .delete  // frees the fields now
            case .record(let range):
                records.withBytes(in: range) { record in
                    batch.put(forKey: key.key, in: Keyspace(key.classID)) { $0.append(contentsOf: record) }
                }
            case .delete:
                batch.delete(key.key, in: Keyspace(key.classID))
            }
        }
        changes.removeAll(keepingCapacity: true)
        positions.removeAll()
    }
}

extension WriteTransaction.Change {
    var isDelete: Bool {
        if case .delete = self { return true }
        return false
    }
}
