import StrataStorage

/// The schemas of the classes a database was opened with, by type and by class id, checked
/// against each other (links point at registered classes).
///
/// Immutable once indexed; `Sendable`.
final class SchemaSet: @unchecked Sendable {
    let all: [ObjectSchema]
    private let byType: [ObjectIdentifier: ObjectSchema]
    private let byName: [String: ObjectSchema]
    private(set) var byClassID: [UInt32: ObjectSchema] = [:]

    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema` naming the class and property at fault.
    init(_ types: [ObjectBase.Type]) throws {
        var all: [ObjectSchema] = []
        var byType: [ObjectIdentifier: ObjectSchema] = [:]
        var byName: [String: ObjectSchema] = [:]
        for type in types where byType[ObjectIdentifier(type)] == nil {
            if type == Object.self || type == EmbeddedObject.self || type == ObjectBase.self {
                throw StrataError(.invalidSchema, "\(type) itself cannot be registered; register its subclasses")
            }
            let schema = try ObjectSchema(type)
            if byName[schema.className] != nil {
                throw StrataError(.invalidSchema, "two registered classes are named \(schema.className)")
            }
            all.append(schema)
            byType[ObjectIdentifier(type)] = schema
            byName[schema.className] = schema
        }
        self.all = all
        self.byType = byType
        self.byName = byName
        try validateLinks()
        for schema in all {
            schema.readsPlainField = schema.properties.map { !$0.bindsToOwner && $0.embeddedSchema == nil }
            schema.keepsWalkColumn = schema.properties.indices.map { index in
                guard schema.readsPlainField[index] else { return false }
                switch schema.properties[index].propertyType {
                case .data, .any: return false
                default: return true
                }
            }
        }
    }

    /// Checks the links between the classes (`SchemaRules.checkLinks`), then points each
    /// property that holds embedded objects at their schema and each `LinkingObjects` at its origin.
    private func validateLinks() throws {
        try SchemaRules.checkLinks(among: all.map(ClassShape.declared(by:)))
        for schema in all {
            for property in schema.properties {
                switch property.type.type {
                case .object(let target):
                    if let targetSchema = byName[target], targetSchema.isEmbedded { property.embeddedSchema = targetSchema }
                case .list(let element), .set(let element), .map(let element):
                    if case .object(let target) = element.type, let targetSchema = byName[target], targetSchema.isEmbedded {
                        property.embeddedSchema = targetSchema
                    }
                case .linkingObjects(let origin, let originProperty):
                    if let originSchema = byName[origin], let linking = originSchema[originProperty] {
                        property.linkingOrigin = .init(schema: originSchema, property: linking)
                    }
                default:
                    break
                }
            }
        }
    }

    /// Fills the class-id table once the catalog assigned ids.
    func index() {
        byClassID = Dictionary(uniqueKeysWithValues: all.map { ($0.classID, $0) })
    }

    func schema(for type: ObjectBase.Type) -> ObjectSchema? { byType[ObjectIdentifier(type)] }
    func schema(named name: String) -> ObjectSchema? { byName[name] }
}
