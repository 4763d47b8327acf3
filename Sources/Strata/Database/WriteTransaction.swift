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
    /// The changes in the order their objects were first touched.
    private var changes: [(key: ObjectKey, change: Change)] = []
    /// The position in `changes` of each changed object's entry.
    private var positions: [ObjectKey: Int] = [:]
    /// Objects that became managed in this write; they are invalidated if it rolls back.
    var attached: [ObjectBase] = []
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
    var changeCount: Int { changes.count }

    /// Drops the base snapshot once the commit batch is built, so the store's index is not
    /// shared while the commit updates it.
    func releaseBase() { pinnedBase = nil }

    /// Keeps the first error a setter could not throw; the write fails with it at commit.
    func `defer`(_ error: any Error, context: String) {
        guard deferredError == nil else { return }
        if let error = error as? StrataError {
            deferredError = StrataError(error.code, "\(context): \(error.message)")
        } else {
            deferredError = StrataError(.invalidValue, "\(context): \(error)")
        }
    }

    func record(_ key: __owned ObjectKey, _ change: __owned Change) {
        if let existing = positions.updateValue(changes.count, forKey: key) {
            positions[key] = existing
            changes[existing].change = change
        } else {
            changes.append((key, change))
        }
    }

    func change(for key: ObjectKey) -> Change? {
        guard let position = positions[key] else { return nil }
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

    /// Appends the operations that apply every change to `batch`; `schemas` gives each class's
    /// schema.
    func addChanges(to batch: inout WriteBatch, schemas: SchemaSet) {
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
            case .delete:
                batch.delete(key.key, in: Keyspace(key.classID))
            }
        }
    }
}
