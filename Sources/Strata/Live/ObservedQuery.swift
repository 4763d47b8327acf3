/// What a `Results` or sectioned-results observer reads, made at its first delivery on its
/// queue: a database of its own opened from the observed one's configuration, the query the
/// handover describes, the observed properties and, without key paths on a class with links,
/// the tracker of linked objects' changes (Realm's default).
struct ObservedQuery {
    let database: Database
    let query: ObjectQuery
    let observed: ObservedProperties
    let linked: LinkedChanges?

    /// - Throws: what opening the database throws; ``/StrataStorage/StrataError`` `.invalidArgument` when the
    ///   query's class is not in the database's schema or a key path names no property.
    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?) throws {
        database = try Database(configuration: configuration)
        guard let query = handover.query(in: database) else {
            throw StrataError(.invalidArgument, "the observed results' class is not in the database's schema")
        }
        self.query = query
        observed = try ObservedProperties(keyPaths: keyPaths, schema: query.schema)
        linked = keyPaths == nil && query.schema.mayHoldLinks ? LinkedChanges(from: query.schema, in: database) : nil
    }
}
