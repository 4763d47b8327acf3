// A stored schema as Atlas App Services JSON schemas (one document per class that is not
// embedded), the shape MongoDB's Device Sync documentation gives:
//
//   {"title": "Person", "bsonType": "object", "required": ["_id"],
//    "properties": {"_id": {"bsonType": "objectId"}, "dog": {"bsonType": "objectId"}, …}}
//
// - `required` lists the primary key only (as App Services' own examples do); a class without
//   one gets `_id` (its generated ObjectId key), listed first. Embedded objects have neither.
// - Int and Int64 are "long", Int8/16/32 "int"; Data "binData"; Decimal128 "decimal"; AnyValue
//   "mixed"; the other scalars by their BSON names.
// - A link is the target's primary-key type ("objectId" for a target without one); an embedded
//   object is nested, with its own title and properties. Lists are {"bsonType": "array",
//   "items": …}, sets add "uniqueItems": true, maps are {"bsonType": "object",
//   "additionalProperties": …}. Backlinks (LinkingObjects) are not stored and not listed.

extension StoredSchema {
    /// One App Services schema document per class that is not embedded, in catalog order.
    public func appServicesSchemas() -> [JSONValue] {
        classes.filter { !$0.isEmbedded }.map { appServicesSchema(of: $0, enclosing: []) }
    }

    /// `enclosing`: the embedded classes this one is nested in.
    private func appServicesSchema(of storedClass: StoredClass, enclosing: Set<String>) -> JSONValue {
        var properties: [JSONValue.Member] = []
        var members: [JSONValue.Member] = [.init("title", .string(storedClass.name)), .init("bsonType", .string("object"))]
        if !storedClass.isEmbedded {
            let key = storedClass.primaryKey?.name ?? "_id"
            members.append(.init("required", .array([.string(key)])))
            if storedClass.primaryKey == nil { properties.append(.init("_id", .object([.init("bsonType", .string("objectId"))]))) }
        }
        for property in storedClass.properties {
            properties.append(.init(property.name, appServicesType(of: property.type, enclosing: enclosing)))
        }
        members.append(.init("properties", .object(properties)))
        return .object(members)
    }

    /// The schema of a value of `type`. An embedded class inside itself (a recursive model)
    /// is a plain {"bsonType": "object"} the second time.
    private func appServicesType(of type: TypeDescriptor, enclosing: Set<String>) -> JSONValue {
        func bson(_ name: String) -> JSONValue { .object([.init("bsonType", .string(name))]) }
        switch type.type {
        case .list(let element):
            return .object([.init("bsonType", .string("array")), .init("items", appServicesType(of: element, enclosing: enclosing))])
        case .set(let element):
            return .object([
                .init("bsonType", .string("array")), .init("uniqueItems", .bool(true)),
                .init("items", appServicesType(of: element, enclosing: enclosing)),
            ])
        case .map(let value):
            return .object([.init("bsonType", .string("object")), .init("additionalProperties", appServicesType(of: value, enclosing: enclosing))])
        case .object(let className):
            guard let target = storedClass(named: className) else { return bson("objectId") }
            guard target.isEmbedded else { return bson(target.primaryKey.map { Self.bsonType(of: $0.type.type) } ?? "objectId") }
            guard !enclosing.contains(className) else { return bson("object") }
            return appServicesSchema(of: target, enclosing: enclosing.union([className]))
        default:
            return bson(Self.bsonType(of: type.type))
        }
    }

    /// The BSON type name of a scalar type.
    static func bsonType(of type: PropertyType) -> String {
        switch type {
        case .bool: "bool"
        case .int, .int64: "long"
        case .int8, .int16, .int32: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "binData"
        case .date: "date"
        case .decimal128: "decimal"
        case .uuid: "uuid"
        case .objectId: "objectId"
        case .any: "mixed"
        case .object, .list, .set, .map, .linkingObjects: "object"
        }
    }
}
