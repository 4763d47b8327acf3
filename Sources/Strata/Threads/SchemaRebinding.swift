/// Not API: moves what refers to one `Database`'s schemas (object paths, query trees) to the
/// schemas of another `Database` of the same files. Each open reads its classes into schemas of
/// its own, and objects keep their schema without retaining it (`ObjectState`), so a value
/// carried from one database to another must use the other's.
///
/// A schema maps to the other database's schema of the same class id and the same Swift class;
/// when it has none (it was opened without that class, or with another class of that name),
/// the value cannot be found there and rebinding throws `Missing`.
struct SchemaRebinding {
    /// The other database has no schema for a class the value refers to.
    struct Missing: Error {}

    let schemas: SchemaSet

    func schema(_ schema: ObjectSchema) throws -> ObjectSchema {
        guard let found = schemas.byClassID[schema.classID],
              ObjectIdentifier(found.type) == ObjectIdentifier(schema.type)
        else { throw Missing() }
        return found
    }

    func path(_ path: ObjectState.Path) throws -> ObjectState.Path {
        ObjectState.Path(
            key: path.key, schema: try schema(path.schema),
            steps: try path.steps.map { step in
                ObjectState.Path.Step(schema: try schema(step.schema), property: step.property, position: step.position, id: step.id)
            })
    }

    func node(_ node: QueryNode) throws -> QueryNode {
        switch node {
        case .constant: return node
        case .compare(var comparison):
            comparison.lhs = try value(comparison.lhs)
            comparison.rhs = try value(comparison.rhs)
            return .compare(comparison)
        case .and(let lhs, let rhs): return .and(try self.node(lhs), try self.node(rhs))
        case .or(let lhs, let rhs): return .or(try self.node(lhs), try self.node(rhs))
        case .not(let operand): return .not(try self.node(operand))
        }
    }

    func value(_ value: QueryValue) throws -> QueryValue {
        switch value {
        case .constant, .list: return value
        case .path(let path): return .path(try self.path(path))
        case .aggregate(let aggregate, let collection, let element):
            return .aggregate(aggregate, collection: try path(collection), element: try element.map(path))
        case .subqueryCount(let collection, let predicate):
            return .subqueryCount(collection: try path(collection), predicate: try node(predicate))
        case .predicate(let predicate): return .predicate(try node(predicate))
        }
    }

    func path(_ path: QueryPath) throws -> QueryPath {
        QueryPath(try path.steps.map(step))
    }

    func step(_ step: QueryStep) throws -> QueryStep {
        switch step {
        case .property(let index, let target, let isMultiple):
            return .property(index: index, target: try target.map(schema), isMultiple: isMultiple)
        case .backlinks(let origin, let propertyID):
            return .backlinks(origin: try schema(origin), propertyID: propertyID)
        case .mapValue, .mapKeys, .valueType:
            return step
        }
    }

    /// The same sorts and distincts, in the same order, over rebound key paths.
    func ordering(_ ordering: QueryOrdering) throws -> QueryOrdering {
        var rebound = QueryOrdering()
        for step in ordering.steps {
            switch step {
            case .sort(let keys):
                rebound = rebound.sorted(by: try keys.map { QuerySortKey(path: try path($0.path), ascending: $0.ascending) })
            case .distinct(let paths):
                rebound = rebound.distinct(by: try paths.map(path))
            }
        }
        return rebound
    }
}
