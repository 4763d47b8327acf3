import StrataStorage

/// Which properties of a class count for a change notification: those `keyPaths` name, or
/// every stored property of the object itself (nil). A key path through links (`"dog.age"`,
/// `"dogs.age"`) counts its first property (the link, so another dog is a change) and the named
/// property of each object it leads to now.
struct ObservedProperties {
    /// One observed key path: the index of its first property, and the names after it.
    struct Path {
        let index: Int
        let rest: [String]
    }

    let paths: [Path]

    init(paths: [Path]) { self.paths = paths }

    /// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` for a first name the class has no property
    ///   of, or a key path of more than `PredicateParser.maxKeyPathDepth` steps (following one
    ///   recurses once per step). (A later name the linked class lacks reads as nothing: the link's class is known
    ///   only from what it links to.)
    init(keyPaths: [String]?, schema: ObjectSchema) throws {
        guard let keyPaths else {
            paths = schema.properties.indices.filter { schema.properties[$0].isStored }.map { Path(index: $0, rest: []) }
            return
        }
        var found: [Path] = []
        for keyPath in keyPaths {
            let names = keyPath.split(separator: ".").map(String.init)
            guard names.count <= PredicateParser.maxKeyPathDepth + 1 else {
                throw StrataError(.invalidArgument, "the key path '\(PredicateLexer.abbreviate(keyPath))' is \(names.count - 1) steps deep; a key path takes at most \(PredicateParser.maxKeyPathDepth) steps")
            }
            guard let first = names.first, let index = schema.indexByName[first] else {
                throw StrataError(.invalidArgument, "\(schema.className) has no property '\(names.first ?? "")' to observe (key path '\(keyPath)')")
            }
            found.append(Path(index: index, rest: Array(names.dropFirst())))
        }
        paths = found
    }

    /// The observed values of a record's `fields`, links followed through `database`.
    func project(_ fields: [FieldValue], in database: Database) -> [FieldValue] {
        paths.map { path in
            let field = path.index < fields.count ? fields[path.index] : .null
            return path.rest.isEmpty ? field : .list([field, follow(field, path.rest[...], in: database)])
        }
    }

    /// The value `rest` names from `value` on: through a link, or each link of a list or set.
    private func follow(_ value: FieldValue, _ rest: ArraySlice<String>, in database: Database) -> FieldValue {
        guard let name = rest.first else { return value }
        switch value {
        case .link(let key):
            guard let schema = database.schemas.byClassID[key.classID], let index = schema.indexByName[name],
                  let fields = database.loadFields(key, schema: schema), index < fields.count else { return .null }
            return follow(fields[index], rest.dropFirst(), in: database)
        case .list(let elements): return .list(elements.map { follow($0, rest, in: database) })
        case .set(let elements): return .list(elements.map { follow($0, rest, in: database) })
        default: return .null
        }
    }
}
