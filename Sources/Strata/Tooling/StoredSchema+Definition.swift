import StrataStorage

// The schema as `strata export` writes it beside the documents (`strata-schema.json`) and
// `strata import` reads it: exact, unlike the App Services schema (which cannot tell Int from
// Int64 or say which properties are optional).
//
//   {"classes": [{"name": "Person", "isEmbedded": false, "properties": [
//       {"name": "id", "type": "int", "isPrimaryKey": true}, {"name": "dog", "type": "object:Dog?"}, …]}]}
//
// `type` is the stored type code (Schema/TypeDescriptor+StoredCode.swift); `isPrimaryKey`
// appears only when true.

extension StoredSchema {
    /// The schema definition `strata export` writes (the grammar above).
    public func definition() -> JSONValue {
        .object([.init("classes", .array(classes.map { storedClass in
            .object([
                .init("name", .string(storedClass.name)),
                .init("isEmbedded", .bool(storedClass.isEmbedded)),
                .init("properties", .array(storedClass.properties.map { property in
                    var members: [JSONValue.Member] = [.init("name", .string(property.name)), .init("type", .string(property.type.storedCode))]
                    if property.isPrimaryKey { members.append(.init("isPrimaryKey", .bool(true))) }
                    return .object(members)
                })),
            ])
        }))])
    }

    /// The classes of a definition (the grammar above), added to `catalog`: a class it holds
    /// must be of the same kind and its properties of the same types; missing properties and
    /// classes are added. The classes of the definition lose their indexes' "complete" flags,
    /// since an import writes no index entries: the next open that declares an index rebuilds it.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when the definition is malformed (a type code
    ///   that is not one, or nests too deep); `.invalidSchema` when a class breaks a rule model
    ///   classes follow (`SchemaRules`); `.schemaMismatch` when it contradicts the catalog.
    static func merging(_ definition: JSONValue, into catalog: Catalog) throws -> Catalog {
        guard case .array(let classes)? = definition["classes"] else {
            throw StrataError(.invalidValue, "the schema definition has no \"classes\" array")
        }
        var merged = catalog
        if merged.classes.isEmpty { merged.indexFormat = ObjectFormat.indexFormat }   // a new catalog
        for json in classes {
            let (name, isEmbedded) = try (string(json["name"], "a class's name"), json["isEmbedded"] == .bool(true))
            guard case .array(let properties)? = json["properties"] else {
                throw StrataError(.invalidValue, "class \(name) has no \"properties\" array")
            }
            let isStored = merged.classes.contains { $0.name == name }
            var entry = try merged.entry(named: name, isEmbedded: isEmbedded)
            for property in properties {
                try entry.merge(name: string(property["name"], "a property name of \(name)"),
                                code: string(property["type"], "the type of a property of \(name)"),
                                isPrimaryKey: property["isPrimaryKey"] == .bool(true), className: name, isStored: isStored)
            }
            merged.classes[merged.classes.firstIndex { $0.name == name } ?? 0] = entry
        }
        try checkRules(of: merged)
        return merged
    }

    /// Checks the merged classes against the rules model classes follow (`SchemaRules`), so
    /// that an import stores nothing a model could not declare and a read could not decode.
    private static func checkRules(of catalog: Catalog) throws {
        let classes = try catalog.classes.map(ClassShape.init)
        for type in classes { try SchemaRules.check(type) }
        try SchemaRules.checkLinks(among: classes)
    }

    private static func string(_ json: JSONValue?, _ what: String) throws -> String {
        guard let text = json?.stringValue, !text.isEmpty else { throw StrataError(.invalidValue, "the schema definition lacks \(what)") }
        return text
    }
}

extension Catalog {
    /// The entry of class `name`, added when missing.
    fileprivate mutating func entry(named name: String, isEmbedded: Bool) throws -> ClassEntry {
        if let existing = classes.first(where: { $0.name == name }) {
            guard existing.isEmbedded == isEmbedded else {
                throw StrataError(.schemaMismatch, "\(name) is stored as \(existing.isEmbedded ? "an EmbeddedObject" : "an Object") but imported as \(isEmbedded ? "an EmbeddedObject" : "an Object")")
            }
            return existing
        }
        guard nextClassID < UInt32.max else { throw StrataError(.invalidValue, "the catalog has no class id left for \(name)") }
        let entry = ClassEntry(name: name, id: nextClassID, isEmbedded: isEmbedded, properties: [], nextPropertyID: 1)
        nextClassID += 1
        classes.append(entry)
        return entry
    }
}

extension Catalog.ClassEntry {
    /// Adds the property, or checks the stored one matches; clears its index flag.
    fileprivate mutating func merge(name: String, code: String, isPrimaryKey: Bool, className: String, isStored: Bool) throws {
        _ = try TypeDescriptor.checked(storedCode: code, of: "\(className).\(name)", in: "the schema definition", error: .invalidValue)
        if let index = properties.firstIndex(where: { $0.name == name }) {
            guard properties[index].code == code, properties[index].isPrimaryKey == isPrimaryKey else {
                throw StrataError(.schemaMismatch, "\(className).\(name) is stored as \(properties[index].code)\(properties[index].isPrimaryKey ? " (primary key)" : "") but imported as \(code)\(isPrimaryKey ? " (primary key)" : "")")
            }
            properties[index].isIndexed = false
            return
        }
        guard !isPrimaryKey || (!isStored && !properties.contains(where: \.isPrimaryKey)) else {
            throw StrataError(.schemaMismatch, "\(className).\(name): an import cannot add a primary key to a stored class, or a second one")
        }
        properties.append(Catalog.PropertyEntry(name: name, id: nextPropertyID, code: code, isPrimaryKey: isPrimaryKey))
        nextPropertyID += 1
    }
}
