import StrataStorage

// A class as a migration sees it, on either side: the stored one (from the catalog, without a
// Swift class) and the declared one (from an `ObjectSchema`, in ClassShape+ObjectSchema.swift).
// Migration objects, the schema comparison and the rewrite all work on shapes, so the old side
// needs no Swift class.

/// A property of a ``ClassShape``.
struct PropertyShape: Equatable {
    let name: String
    let type: TypeDescriptor
    let isPrimaryKey: Bool
    /// Whether a secondary index is declared (declared side) or recorded (stored side).
    let isIndexed: Bool
}

/// The stored properties of a class, in order, and whether it is embedded.
struct ClassShape {
    let name: String
    let isEmbedded: Bool
    let properties: [PropertyShape]
    /// The stored form of each property's default (declared side; null on the stored side,
    /// which is never given defaults).
    let defaults: [FieldValue]

    var primaryKey: PropertyShape? { properties.first(where: \.isPrimaryKey) }

    subscript(name: String) -> PropertyShape? { properties.first { $0.name == name } }

    init(name: String, isEmbedded: Bool, properties: [PropertyShape], defaults: [FieldValue]) {
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
        self.defaults = defaults
    }

    /// The stored shape of a catalog entry.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when a property's stored type code is not one (or
    ///   nests too deep).
    init(_ entry: Catalog.ClassEntry) throws {
        name = entry.name
        isEmbedded = entry.isEmbedded
        properties = try entry.properties.map { property in
            let type = try TypeDescriptor.checked(
                storedCode: property.code, of: "\(entry.name).\(property.name)", in: "the schema catalog", error: .corruption)
            return PropertyShape(name: property.name, type: type, isPrimaryKey: property.isPrimaryKey, isIndexed: property.isIndexed)
        }
        defaults = Array(repeating: .null, count: properties.count)
    }
}
