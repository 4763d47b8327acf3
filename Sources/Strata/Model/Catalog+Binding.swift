import StrataStorage

// The catalog's ids given to the declared classes (Catalog.swift has the stored catalog).

extension Catalog {
    /// Assigns ids to the schemas, adding entries for new classes and properties.
    /// - Throws: ``/StrataStorage/StrataError`` `.schemaMismatch` naming the class and property whose stored
    ///   type differs from the declared one.
    mutating func bind(_ schemas: [ObjectSchema], schemaVersion: UInt64) throws {
        if schemaVersion < self.schemaVersion {
            throw StrataError(
                .schemaMismatch,
                "the database has schema version \(self.schemaVersion), newer than the configuration's \(schemaVersion)")
        }
        self.schemaVersion = schemaVersion
        for schema in schemas {
            var entry: ClassEntry
            if let existing = classes.firstIndex(where: { $0.name == schema.className }) {
                entry = classes[existing]
                if entry.isEmbedded != schema.isEmbedded {
                    throw StrataError(
                        .schemaMismatch,
                        "\(schema.className) is stored as \(entry.isEmbedded ? "an EmbeddedObject" : "an Object") but declared as \(schema.isEmbedded ? "an EmbeddedObject" : "an Object")")
                }
            } else {
                entry = ClassEntry(name: schema.className, id: nextClassID, isEmbedded: schema.isEmbedded, properties: [], nextPropertyID: 1)
                nextClassID += 1
                classes.append(entry)
            }
            for property in schema.properties where property.isStored {
                let code = property.type.storedCode
                if let stored = entry.properties.first(where: { $0.name == property.name }) {
                    guard stored.code == code else {
                        throw StrataError(
                            .schemaMismatch,
                            "\(schema.className).\(property.name) is stored as \(stored.code) but declared as \(code) (\(property.type)); changing a property's type needs a migration")
                    }
                    guard stored.isPrimaryKey == property.isPrimaryKey else {
                        throw StrataError(
                            .schemaMismatch,
                            "\(schema.className).\(property.name): the primary key changed; that needs a migration")
                    }
                    property.propertyID = stored.id
                } else {
                    property.propertyID = entry.nextPropertyID
                    entry.properties.append(PropertyEntry(
                        name: property.name, id: entry.nextPropertyID, code: code, isPrimaryKey: property.isPrimaryKey))
                    entry.nextPropertyID += 1
                }
            }
            schema.classID = entry.id
            let stored = schema.properties.filter(\.isStored)
            var indexByPropertyID = [Int](repeating: -1, count: Int(stored.map(\.propertyID).max() ?? 0) + 1)
            for property in stored { indexByPropertyID[Int(property.propertyID)] = property.index }
            schema.indexByPropertyID = indexByPropertyID
            schema.propertyIDs = schema.properties.map { $0.isStored ? $0.propertyID : 0 }
            schema.storedFieldLayout = stored.map { ($0.propertyID, $0.index) }
            classes[classes.firstIndex(where: { $0.name == schema.className })!] = entry
        }
    }
}
