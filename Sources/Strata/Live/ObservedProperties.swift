import StrataStorage

/// Which properties of a class count for a change notification: those `keyPaths` names, or
/// every stored property (nil). A key path through a link (`"dog.age"`) counts its first
/// property only (the link itself): a change inside the linked object is not seen yet.
struct ObservedProperties {
    let indexes: [Int]

    init(indexes: [Int]) { self.indexes = indexes }

    /// - Throws: ``StrataError`` `.invalidArgument` for a name the class has no property of.
    init(keyPaths: [String]?, schema: ObjectSchema) throws {
        guard let keyPaths else {
            indexes = schema.properties.indices.filter { schema.properties[$0].isStored }
            return
        }
        var found: [Int] = []
        for path in keyPaths {
            let name = path.split(separator: ".", maxSplits: 1).first.map(String.init) ?? path
            guard let index = schema.indexByName[name] else {
                throw StrataError(.invalidArgument, "\(schema.className) has no property '\(name)' to observe (key path '\(path)')")
            }
            if !found.contains(index) { found.append(index) }
        }
        indexes = found.sorted()
    }

    /// The observed fields of a record's `fields`.
    func project(_ fields: [FieldValue]) -> [FieldValue] {
        indexes.map { $0 < fields.count ? fields[$0] : .null }
    }
}
