import StrataStorage

/// Not API: the objects a query starts from, before its predicate, sort and distinct.
enum QuerySource {
    /// Every object of the class.
    case all
    /// The objects one step (a list or set of links, or backlinks) reaches from `owner`, in
    /// the collection's order, read again at every evaluation so that the results stay live.
    case collection(owner: ObjectState, step: QueryStep)
    /// No objects: the owner of a collection did not exist in the view the query moved to.
    case empty

    /// The keys of the objects the source holds now, in order (a list's duplicates included).
    /// An owner that no longer exists holds nothing.
    func keys(in database: Database) -> [ObjectKey] {
        guard case .collection(let owner, let step) = self, let fields = owner.currentFields() else { return [] }
        let items = QueryEvaluator(database: database).walk(
            QueryPath([step]), from: QueryObject(key: owner.key, fields: fields), resolvingLast: false)
        return QueryEvaluator.flatten(items).compactMap { value in
            if case .link(let key) = value { return key }
            return nil
        }
    }

    /// The same source in another view of the database (a frozen or a live one).
    func moved(to database: Database) -> QuerySource {
        guard case .collection(let owner, let step) = self else { return self }
        guard let state = owner.path.state(in: database) else { return .empty }
        return .collection(owner: state, step: step)
    }
}

extension ObjectQuery {
    /// This query with `node` also required (before the ordering, as Realm's: a distinct then
    /// keeps the first of the matches that satisfy both).
    func filtered(by node: QueryNode) -> ObjectQuery {
        ObjectQuery(
            database: database, schema: schema, source: source, predicate: predicate.map { .and($0, node) } ?? node,
            ordering: ordering)
    }

    /// This query, then sorted by `keys` (see `QueryOrdering`).
    func sorted(by keys: [QuerySortKey]) -> ObjectQuery {
        ObjectQuery(database: database, schema: schema, source: source, predicate: predicate, ordering: ordering.sorted(by: keys))
    }

    /// This query, then keeping the first match of each combination of what `paths` reach.
    func distinct(by paths: [QueryPath]) -> ObjectQuery {
        ObjectQuery(database: database, schema: schema, source: source, predicate: predicate, ordering: ordering.distinct(by: paths))
    }

    /// This query run in another view of the database.
    func moved(to other: Database) -> ObjectQuery {
        ObjectQuery(
            database: other, schema: schema, source: source.moved(to: other), predicate: predicate, ordering: ordering)
    }
}
