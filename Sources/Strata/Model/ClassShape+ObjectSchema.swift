// The shapes of a declared model class, read from its `ObjectSchema` (ClassShape.swift has the
// type and the stored shape of a catalog entry).

extension ClassShape {
    /// The declared shape of `schema` (its stored properties).
    init(_ schema: ObjectSchema) {
        name = schema.className
        isEmbedded = schema.isEmbedded
        let stored = schema.properties.filter(\.isStored)
        properties = stored.map {
            PropertyShape(name: $0.name, type: $0.type, isPrimaryKey: $0.isPrimaryKey, isIndexed: $0.isIndexed && !$0.isPrimaryKey)
        }
        defaults = stored.map { schema.defaultFields[$0.index] }
    }

    /// The class a model class declares, as the rules see it: every property, `LinkingObjects`
    /// included (no defaults).
    static func declared(by schema: ObjectSchema) -> ClassShape {
        ClassShape(name: schema.className, isEmbedded: schema.isEmbedded, declaring: schema.properties)
    }

    /// A class named `name` with `properties` (`LinkingObjects` included), as the rules see it.
    init(name: String, isEmbedded: Bool, declaring properties: [PropertySchema]) {
        self.init(name: name, isEmbedded: isEmbedded, properties: properties.map {
            PropertyShape(name: $0.name, type: $0.type, isPrimaryKey: $0.isPrimaryKey, isIndexed: $0.isIndexed)
        }, defaults: Array(repeating: .null, count: properties.count))
    }
}
