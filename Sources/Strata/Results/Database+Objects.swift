import StrataStorage

// The database's entry points that make `Results`: they live with the results, so the database
// layer below names no results type.

extension Database {
    /// Every object of `type`, as lazily evaluated, live ``Results``.
    /// - Precondition: `type` is one of the database's object types.
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        Results(database: self, schema: requireSchema(type))
    }

    /// Deletes every object of every class (embedded objects with their parents), as Realm's
    /// `deleteAll()`. The classes stay registered.
    ///
    /// Thread safety: on the database's thread, inside its write.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` outside a write.
    /// - Complexity: O(n) in the number of stored objects, with their links.
    public func deleteAll() throws {
        guard transaction != nil else {
            throw StrataError(.notInWriteTransaction, "deleteAll() outside a write transaction: call it inside `try db.write { }`")
        }
        for schema in schemas.all where !schema.isEmbedded {
            try delete(Results<Object>(database: self, schema: schema))
        }
    }
}
