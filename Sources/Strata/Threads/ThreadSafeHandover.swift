import StrataStorage

/// Not API: what a ``ThreadSafeReference`` carries — which files its value lives in, and how to
/// find the value there again: an object's path from its top-level object, an object and one of
/// its collection properties, or a query (class, source, predicate, sorts and distincts).
/// Nothing in it refers to a `Database` or an object; it refers to schemas, which are immutable.
///
/// Immutable and `Sendable`. Public only because ``ThreadConfined``'s requirements name it.
public struct _ThreadSafeHandover: Sendable {
    enum Target: Sendable {
        case object(ObjectState.Path)
        /// A `List`, `MutableSet`, `Map` or `LinkingObjects` property of an object.
        case property(owner: ObjectState.Path, index: Int)
        case query(QueryHandover)
    }

    /// The name of the files' open store (`SharedStore.name`).
    let storeName: String
    let target: Target
    /// The commit the referenced value was read at: a live database older than it advances
    /// before it resolves the reference.
    let sequence: UInt64

    /// What the query of `results` needs to run again in another database.
    struct QueryHandover: Sendable {
        enum Source: Sendable {
            case all
            case empty
            case collection(owner: ObjectState.Path, step: QueryStep)
        }
        let schema: ObjectSchema
        let source: Source
        let predicate: QueryNode?
        let ordering: QueryOrdering
    }
}

extension _ThreadSafeHandover {
    /// The handover of the managed object `state` views.
    /// - Throws: ``/StrataStorage/StrataError`` `.objectInvalidated` when it no longer exists in its view.
    init(object state: ObjectState) throws {
        try Self.checkValid(state, state.schema.className)
        self.init(storeName: state.database.shared.name, target: .object(state.path), sequence: state.database.readSequence)
    }

    /// The handover of the collection `binding` reads.
    /// - Throws: ``/StrataStorage/StrataError`` `.objectInvalidated` when its owner no longer exists.
    init(collection binding: CollectionBinding) throws {
        try Self.checkValid(binding.owner, binding.name)
        self.init(
            storeName: binding.database.shared.name, target: .property(owner: binding.owner.path, index: binding.index),
            sequence: binding.database.readSequence)
    }

    /// The handover of a query.
    init(query: ObjectQuery) {
        let source: QueryHandover.Source
        switch query.source {
        case .all: source = .all
        case .empty: source = .empty
        case .collection(let owner, let step): source = .collection(owner: owner.path, step: step)
        }
        let handover = QueryHandover(schema: query.schema, source: source, predicate: query.predicate, ordering: query.ordering)
        self.init(storeName: query.database.shared.name, target: .query(handover), sequence: query.database.readSequence)
    }

    private static func checkValid(_ state: ObjectState, _ name: String) throws {
        guard state.isValid else {
            throw StrataError(.objectInvalidated, "\(name): cannot make a reference to a deleted or invalidated object")
        }
    }

    /// The unmanaged-value error of `ThreadSafeReference(checking:)`.
    static func unmanaged(_ kind: String) -> StrataError {
        StrataError(.invalidArgument, "cannot make a reference to an unmanaged \(kind): only managed values are confined to a thread")
    }
}

extension _ThreadSafeHandover {
    /// The object at `path`, read through `database`; nil when it does not exist there.
    private func state(at path: ObjectState.Path, in database: Database) -> ObjectState? {
        guard let path = try? SchemaRebinding(schemas: database.schemas).path(path) else { return nil }
        return path.state(in: database)
    }

    /// The object the handover names, read through `database`, as a new accessor of its class.
    func object(in database: Database) -> ObjectBase? {
        guard case .object(let path) = target, let state = state(at: path, in: database) else { return nil }
        let object = state.schema.type.init()
        database.attach(object, state: state)
        return object
    }

    /// The owner and property of the collection the handover names, read through `database`.
    func collectionOwner(in database: Database) -> (owner: ObjectState, index: Int)? {
        guard case .property(let path, let index) = target, let owner = state(at: path, in: database) else { return nil }
        return (owner, index)
    }

    /// The query the handover names, run in `database`: the same class, source, predicate,
    /// sorts and distincts. A collection source whose owner no longer exists holds nothing.
    func query(in database: Database) -> ObjectQuery? {
        guard case .query(let handover) = target else { return nil }
        let rebinding = SchemaRebinding(schemas: database.schemas)
        do {
            let source: QuerySource
            switch handover.source {
            case .all: source = .all
            case .empty: source = .empty
            case .collection(let path, let step):
                let owner = try rebinding.path(path).state(in: database)
                source = try owner.map { .collection(owner: $0, step: try rebinding.step(step)) } ?? .empty
            }
            return ObjectQuery(
                database: database, schema: try rebinding.schema(handover.schema), source: source,
                predicate: try handover.predicate.map(rebinding.node), ordering: try rebinding.ordering(handover.ordering))
        } catch {
            return nil
        }
    }
}
