// Adding the unmanaged objects an added object links to. Each is added while the linking
// object's fields are read (Object._strataWrite), so a chain of new objects would recurse once
// per link, and a long enough chain (a linked list of 100,000 new objects) would overflow the
// thread's stack. Below `maxLinkedAddDepth` links are added that way; deeper, a linked object
// gets its key and a provisional state at once (so links to it, cycles included, resolve) and
// its record is added when the outermost add ends, from a work list: the stack stays bounded
// however long the chain.

extension Database {
    /// An unmanaged linked object whose key is taken and whose record is still to add.
    struct DeferredAdd {
        let object: ObjectBase
        let schema: ObjectSchema
        let key: ObjectKey
        let primaryKeyField: FieldValue
        let update: UpdatePolicy
    }

    /// How many linked adds may run inside each other before the next ones are deferred.
    static let maxLinkedAddDepth = 64

    /// Adds (or defers) `object`, which an object being added links to, with the write's
    /// policy for linked objects; returns its key.
    /// - Throws: what ``add(_:update:)-(Object,_)`` throws for it.
    func addLinkedObject(_ object: ObjectBase) throws -> ObjectKey {
        guard let transaction else { return try addObject(object, update: .error) }
        let update = transaction.linkedUpdatePolicy
        guard object._strataState == nil, transaction.linkedAddDepth >= Self.maxLinkedAddDepth else {
            transaction.linkedAddDepth += 1
            defer { transaction.linkedAddDepth -= 1 }
            return try addObject(object, update: update)
        }
        if let valueError = object.valueError { throw valueError }
        let schema = try schemaToAdd(object)
        let (key, primaryKeyField) = try keyToAdd(object, schema: schema)
        let provisional = ObjectState(database: self, schema: schema, key: key)
        provisional.isBeingAdded = true
        object._strataState = provisional
        transaction.deferredAdds.append(DeferredAdd(object: object, schema: schema, key: key, primaryKeyField: primaryKeyField, update: update))
        return key
    }

    /// Adds the deferred linked objects, and those their adds defer in turn, until none is left.
    func addDeferredObjects(in transaction: WriteTransaction) throws {
        while let next = transaction.deferredAdds.popLast() {
            next.object._strataState = nil
            do {
                try addObject(next.object, schema: next.schema, key: next.key, primaryKeyField: next.primaryKeyField, update: next.update, in: transaction)
            } catch {
                dropDeferredObjects(in: transaction)
                throw error
            }
        }
    }

    /// Forgets the deferred objects of an add that failed: they are unmanaged again.
    func dropDeferredObjects(in transaction: WriteTransaction) {
        for pending in transaction.deferredAdds { pending.object._strataState = nil }
        transaction.deferredAdds.removeAll()
    }
}
