import StrataStorage

// Links held by objects of classes this process did not register (its `objectTypes` omit them,
// though the stored catalog has them). Deleting their target must still remove those links, or
// they would dangle, and later point at a new object stored under the same key. Records are
// self-describing (tags and property ids), so the links come out without a schema: the record
// is decoded field by field, its links to the target removed, and the record written back.

extension Database {
    /// Removes the links to `target` from the object `backlink` names, whose class has no
    /// schema here, and its backlink entries.
    func unlinkUnregistered(_ backlink: Backlink, from target: ObjectKey) {
        guard let transaction else { preconditionFailure("unlinking outside a write") }
        let source = backlink.source
        let reservation = transaction.reserve(source)
        guard let record = unregisteredRecord(source, previous: reservation.previous, in: transaction) else {
            transaction.abandon(reservation, for: source)
            return
        }
        let unlinked = record.map { FieldValue.Field(id: $0.id, value: Self.removingLinks(to: target, from: $0.value)) }
        transaction.storeRecord(RecordCodec.encode(storedFields: unlinked), at: reservation, for: source)
        transaction.backlinkChanges[target, default: [:]][backlink] = false
        bumpVersion()
    }

    /// The stored fields of an object of an unregistered class as the write sees them, or nil
    /// when it does not exist (or is damaged: noted, and the write fails).
    private func unregisteredRecord(
        _ key: ObjectKey, previous: WriteTransaction.Change?, in transaction: WriteTransaction
    ) -> [FieldValue.Field]? {
        do {
            switch previous {
            case .record(let range)?:
                return try transaction.recordBytes(range).withUnsafeBytes { try RecordCodec.decodeStoredFields($0) }
            case .delete?, .put?:
                // (A `.put` needs a schema, so this write cannot have made one for this class.)
                return nil
            case nil:
                return try transaction.base.withValue(for: key.key, in: Keyspace(key.classID)) {
                    try RecordCodec.decodeStoredFields($0)
                }
            }
        } catch {
            noteReadFailure(error, reading: "an object of class id \(key.classID)")
            return nil
        }
    }
}
