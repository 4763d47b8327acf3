import StrataStorage

// In-place changes of one collection field (List, MutableSet, Map) of a top-level object in the
// open write. The collection changes the field where the write holds it, without copying it,
// and says which values it removed and added; the backlinks follow from those values alone.
// (The general path, `ObjectState.store` → `recordChange`, compares every link of the object
// before and after the change: O(n) for a field of n links, O(n²) for a loop of changes.)
//
//   change 1 of the field:  take the write's fields ─► edit field i ─► note links of
//                           removed/added values ─► store the fields back (.put)
//   the owner's cached fields are dropped first, so the write holds the only reference and
//   `Array` appends, inserts and removes in place.

/// What an in-place change of a collection field did: the values that left the field and those
/// that entered it (once per occurrence). For a list, `addedAt` is the position of the first
/// added value (the added values follow each other from there).
struct FieldEdit {
    var removed: [FieldValue] = []
    var added: [FieldValue] = []
    var addedAt: Int?

    /// A change that removed and added nothing.
    static let none = FieldEdit()
}

/// What a write keeps about one field that collections change in place (see
/// `WriteTransaction.fieldCaches`); each part is built from the field when first needed.
struct FieldCache {
    /// How many links of the field go to each object.
    var linkCounts: [ObjectKey: Int]?
    /// The elements of a set field.
    var members: Set<FieldValue>?

    var isEmpty: Bool { linkCounts == nil && members == nil }
}

extension Database {
    /// Changes field `index` of the top-level object `owner` in place in the open write: `edit`
    /// changes the field (and the write's cache of it) and says what it removed and added; it
    /// must not call back into the database. False, with nothing done, when the change must
    /// take the general path: an embedded owner, an indexed property, or no open write.
    /// - Precondition: the owner exists.
    /// - Complexity: O(1) beyond `edit` and the links inside the values it removed and added;
    ///   the first removal of a link from a field in a write counts the field's links once.
    func editField(of owner: ObjectState, at index: Int, _ edit: (inout FieldValue, inout FieldCache) -> FieldEdit) -> Bool {
        let schema = owner.schema
        guard let transaction, owner.location == nil, !schema.indexedProperties.contains(where: { $0.index == index }) else {
            return false
        }
        owner.forgetFields()
        let key = owner.key
        var fields: [FieldValue]
        let reservation: WriteTransaction.Reservation
        (fields, reservation) = fieldsToEdit(key, schema: schema, in: transaction)
        var cache = transaction.fieldCaches[key]?.removeValue(forKey: index) ?? FieldCache()
        let change = edit(&fields[index], &cache)
        let property = schema.properties[index]
        if property.mayHoldLinks {
            noteLinks(of: change, key: key, property: property, field: fields[index], cache: &cache, in: transaction)
        }
        if !cache.isEmpty { transaction.fieldCaches[key, default: [:]][index] = cache }
        transaction.store(.put(fields), at: reservation, for: key, keepingFieldCaches: true)
        if let first = change.addedAt, !pendingEmbedded.isEmpty, property.embeddedSchema != nil {
            adoptEmbeddedObjects(in: change.added, from: first, property: index, parent: owner)
        }
        bumpVersion()
        return true
    }

    /// The fields of `key` as the write holds them, taken out of it (see
    /// `WriteTransaction.takeFields`), and where they go back: a reservation that keeps no
    /// previous change, so that nothing but the caller refers to the fields.
    private func fieldsToEdit(
        _ key: ObjectKey, schema: ObjectSchema, in transaction: WriteTransaction
    ) -> ([FieldValue], WriteTransaction.Reservation) {
        let reservation = transaction.reserve(key)
        let place = WriteTransaction.Reservation(position: reservation.position, previous: nil)
        switch reservation.previous {
        case .put?:
            return (transaction.takeFields(at: reservation), place)
        case let previous?:
            guard let decoded = transaction.fields(of: previous, schema: schema) else {
                preconditionFailure("\(schema.className): the object has been deleted or invalidated")
            }
            return (decoded, place)
        case nil:
            guard let loaded = loadFields(key, schema: schema) else {
                preconditionFailure("\(schema.className): the object has been deleted or invalidated")
            }
            return (loaded, place)
        }
    }

    /// Notes the backlinks an in-place change of `key`'s `property` adds and removes: a link
    /// added is noted present; a link removed is noted absent when no other link of the field
    /// (`field`, after the change) goes to the same object, as `cache` counts them.
    private func noteLinks(
        of change: FieldEdit, key: ObjectKey, property: PropertySchema, field: FieldValue,
        cache: inout FieldCache, in transaction: WriteTransaction
    ) {
        var removed: [ObjectKey] = []
        var added: [ObjectKey] = []
        for value in change.removed { Self.collectLinks(value, into: &removed) }
        for value in change.added { Self.collectLinks(value, into: &added) }
        transaction.visitedElements += removed.count + added.count
        guard !removed.isEmpty || !added.isEmpty else { return }
        if cache.linkCounts != nil {
            for target in added { cache.linkCounts![target, default: 0] += 1 }
            for target in removed { cache.linkCounts![target, default: 0] -= 1 }
        } else if !removed.isEmpty {
            var all: [ObjectKey] = []
            Self.collectLinks(field, into: &all)
            transaction.visitedElements += all.count
            var counts: [ObjectKey: Int] = [:]
            for target in all { counts[target, default: 0] += 1 }
            cache.linkCounts = counts
        }
        let backlink = Backlink(source: key, propertyID: property.propertyID)
        for target in removed where (cache.linkCounts?[target] ?? 0) <= 0 {
            cache.linkCounts?[target] = nil
            transaction.backlinkChanges[target, default: [:]][backlink] = false
        }
        for target in added { transaction.backlinkChanges[target, default: [:]][backlink] = true }
    }
}
