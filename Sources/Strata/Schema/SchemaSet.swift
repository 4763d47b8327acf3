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

    /// - Throws: ``StrataError`` `.invalidSchema` naming the class and property at fault.
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

    private func validateLinks() throws {
        for schema in all {
            for property in schema.properties {
                let name = "\(schema.className).\(property.name)"
                switch property.type.type {
                case .object(let target):
                    let targetSchema = try registered(target, from: name)
                    if !property.type.isOptional {
                        throw StrataError(.invalidSchema, "\(name): a link to \(target) must be optional (declare it `\(target)?`)")
                    }
                    if targetSchema.isEmbedded { property.embeddedSchema = targetSchema }
                case .list(let element), .set(let element), .map(let element):
                    guard case .object(let target) = element.type else { break }
                    let targetSchema = try registered(target, from: name)
                    if targetSchema.isEmbedded {
                        guard case .list = property.type.type else {
                            throw StrataError(.invalidSchema, "\(name): embedded objects can be held by a to-one property or a List, not by a MutableSet or Map")
                        }
                        property.embeddedSchema = targetSchema
                    }
                case .linkingObjects(let origin, let originProperty):
                    let originSchema = try registered(origin, from: name)
                    guard let linking = originSchema[originProperty] else {
                        throw StrataError(.invalidSchema, "\(name): LinkingObjects names \(origin).\(originProperty), which does not exist")
                    }
                    guard Self.linkTarget(of: linking.type) == schema.className else {
                        throw StrataError(
                            .invalidSchema,
                            "\(name): LinkingObjects names \(origin).\(originProperty), which does not link to \(schema.className)")
                    }
                    property.linkingOrigin = .init(schema: originSchema, property: linking)
                default:
                    break
                }
            }
        }
    }

    private func registered(_ className: String, from property: String) throws -> ObjectSchema {
        guard let schema = byName[className] else {
            throw StrataError(.invalidSchema, "\(property) links to \(className), which is not one of the database's objectTypes")
        }
        return schema
    }

    /// The class a link property points at, for a to-one link or a list or set of links.
    private static func linkTarget(of descriptor: TypeDescriptor) -> String? {
        switch descriptor.type {
        case .object(let target): return target
        case .list(let element), .set(let element):
            if case .object(let target) = element.type { return target }
            return nil
        default: return nil
        }
    }

    /// Fills the class-id table once the catalog assigned ids.
    func index() {
        byClassID = Dictionary(uniqueKeysWithValues: all.map { ($0.classID, $0) })
    }

    func schema(for type: ObjectBase.Type) -> ObjectSchema? { byType[ObjectIdentifier(type)] }
    func schema(named name: String) -> ObjectSchema? { byName[name] }
}
