// A step of a key path through the schema: what queries, sort keys, sections and key-path
// tracing follow from one class to the next.

/// One step of a key path.
enum QueryStep: Sendable {
    /// The stored property at `index` of the current object. `target` is the schema of the
    /// objects it links to or embeds (for a link, a list of links…), nil for values. `isMultiple`:
    /// a list, set or map.
    case property(index: Int, target: ObjectSchema?, isMultiple: Bool)
    /// The objects of `origin` whose property `propertyID` links to the current object
    /// (`LinkingObjects`, `@links.Class.property`).
    case backlinks(origin: ObjectSchema, propertyID: UInt32)
    /// The value a map has for `key` (nil when it has none).
    case mapValue(key: String)
    /// A map's keys (`@allKeys`).
    case mapKeys
    /// The type name of a mixed value (`@type`): "int", "string", "object"…
    case valueType

    var isMultiple: Bool {
        switch self {
        case .property(_, _, let isMultiple): return isMultiple
        case .backlinks, .mapKeys: return true
        case .mapValue, .valueType: return false
        }
    }
}

extension QueryStep {
    /// The step that reads `property`: a link or an embedded object leads to its class, a
    /// collection or map to its elements' class (if they are objects), `LinkingObjects` to the
    /// objects that link here.
    static func make(for property: PropertySchema, in schemas: SchemaSet) -> QueryStep {
        if case .linkingObjects = property.type.type, let origin = property.linkingOrigin {
            return .backlinks(origin: origin.schema, propertyID: origin.property.propertyID)
        }
        var target: ObjectSchema?
        var isMultiple = false
        switch property.type.type {
        case .object(let className): target = schemas.schema(named: className)
        case .list(let element), .set(let element), .map(let element):
            isMultiple = true
            if case .object(let className) = element.type { target = schemas.schema(named: className) }
        default: break
        }
        return .property(index: property.index, target: target, isMultiple: isMultiple)
    }

    /// The class of the objects this step reaches, if they are objects.
    var targetSchema: ObjectSchema? {
        switch self {
        case .property(_, let target, _): return target
        case .backlinks(let origin, _): return origin
        case .mapValue, .mapKeys, .valueType: return nil
        }
    }
}
