import StrataStorage

/// The changes of an open write: object fields by key (nil for a deletion), in the order they
/// were first touched, over the snapshot the write started from.
///
/// Used by the writing thread only.
final class WriteTransaction {
    enum Change {
        case put(ObjectSchema, [FieldValue])
        case delete
    }

    /// The snapshot the write started from; released (see `releaseBase`) while it commits.
    private var pinnedBase: Snapshot?
    var base: Snapshot { pinnedBase.unsafelyUnwrapped }
    private(set) var changes: [ObjectKey: Change] = [:]
    private(set) var order: [ObjectKey] = []
    /// Objects that became managed in this write; they are invalidated if it rolls back.
    var attached: [ObjectBase] = []
    /// The first error a property setter could not throw; the write fails with it.
    var deferredError: StrataError?
    /// Per linked-to object: links into it this write added (true) or removed (false).
    var backlinkChanges: [ObjectKey: [Backlink: Bool]] = [:]
    /// Per secondary-index entry: object keys this write added (true) or removed (false).
    var indexChanges: [StorageKey: [StorageKey: Bool]] = [:]

    init(base: Snapshot) { pinnedBase = base }

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

    func record(_ key: ObjectKey, _ change: Change) {
        if changes.updateValue(change, forKey: key) == nil { order.append(key) }
    }

    func change(for key: ObjectKey) -> Change? { changes[key] }

    /// Keys of one class added in this write (not in the base snapshot).
    func addedKeys(classID: UInt32) -> [ObjectKey] {
        order.filter { key in
            guard key.classID == classID, case .put = changes[key]! else { return false }
            return !base.contains(key.key, in: Keyspace(classID))
        }
    }

    /// The storage batch that applies every change.
    func batch() -> WriteBatch {
        var batch = WriteBatch()
        for key in order {
            switch changes[key]! {
            case .put(let schema, let fields):
                batch.put(forKey: key.key, in: Keyspace(key.classID)) { bytes in
                    RecordCodec.encode(schema.storedFields(fields), appendingTo: &bytes)
                }
            case .delete:
                batch.delete(key.key, in: Keyspace(key.classID))
            }
        }
        return batch
    }
}
