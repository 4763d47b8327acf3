// The stored code of a property type: what the catalog keeps for each property and compares at
// open. It is part of the file format and independent of `description` (which is for people
// and may be reworded):
//
//   code := base | base "?"                                  ("?": the property is optional)
//   base := "bool" | "int" | "int8" | "int16" | "int32" | "int64" | "float" | "double"
//         | "string" | "data" | "date" | "decimal128" | "uuid" | "objectId" | "mixed"
//         | "object:" class-name | "list<" code ">" | "set<" code ">" | "map<" code ">"
//
// (`LinkingObjects` properties are not stored, so they have no code.)

extension TypeDescriptor {
    /// The type's stored code (see the grammar above).
    var storedCode: String {
        let base: String
        switch type {
        case .bool: base = "bool"
        case .int: base = "int"
        case .int8: base = "int8"
        case .int16: base = "int16"
        case .int32: base = "int32"
        case .int64: base = "int64"
        case .float: base = "float"
        case .double: base = "double"
        case .string: base = "string"
        case .data: base = "data"
        case .date: base = "date"
        case .decimal128: base = "decimal128"
        case .uuid: base = "uuid"
        case .objectId: base = "objectId"
        case .any: base = "mixed"
        case .object(let className): base = "object:\(className)"
        case .list(let element): base = "list<\(element.storedCode)>"
        case .set(let element): base = "set<\(element.storedCode)>"
        case .map(let value): base = "map<\(value.storedCode)>"
        case .linkingObjects(let className, let property): base = "linkingObjects:\(className).\(property)"
        }
        return isOptional ? base + "?" : base
    }

    /// The stored code of a type written in a catalog made before codes were stored, where each
    /// property's type was its `description` (`Int`, `Dog?`, `List<String>`, `Map<String, Int?>`).
    static func storedCode(fromDescription description: String) -> String {
        var text = Substring(description)
        let optional = text.hasSuffix("?")
        if optional { text = text.dropLast() }
        let base: String
        if let element = text.unwrapped(prefix: "List<") {
            base = "list<\(storedCode(fromDescription: String(element)))>"
        } else if let element = text.unwrapped(prefix: "MutableSet<") {
            base = "set<\(storedCode(fromDescription: String(element)))>"
        } else if let value = text.unwrapped(prefix: "Map<String, ") {
            base = "map<\(storedCode(fromDescription: String(value)))>"
        } else {
            let scalars = [
                "Bool": "bool", "Int": "int", "Int8": "int8", "Int16": "int16", "Int32": "int32",
                "Int64": "int64", "Float": "float", "Double": "double", "String": "string", "Data": "data",
                "Date": "date", "Decimal128": "decimal128", "UUID": "uuid", "ObjectId": "objectId",
                "AnyValue": "mixed",
            ]
            base = scalars[String(text)] ?? "object:\(text)"
        }
        return optional ? base + "?" : base
    }
}

extension Substring {
    /// What is between `prefix` and a closing `>` that ends the text, or nil.
    fileprivate func unwrapped(prefix: String) -> Substring? {
        guard hasPrefix(prefix), hasSuffix(">") else { return nil }
        return dropFirst(prefix.count).dropLast()
    }
}

extension TypeDescriptor {
    /// The type a stored code names (the grammar at the top of the file), or nil when the code
    /// is not one: a catalog's code is stored bytes, so a damaged one is reported, not trusted.
    init?(storedCode code: String) {
        var text = Substring(code)
        let optional = text.hasSuffix("?")
        if optional { text = text.dropLast() }
        let scalars: [Substring: PropertyType] = [
            "bool": .bool, "int": .int, "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64,
            "float": .float, "double": .double, "string": .string, "data": .data, "date": .date,
            "decimal128": .decimal128, "uuid": .uuid, "objectId": .objectId, "mixed": .any,
        ]
        if let scalar = scalars[text] {
            self.init(scalar, optional: optional)
        } else if text.hasPrefix("object:"), text.count > "object:".count {
            self.init(.object(className: String(text.dropFirst("object:".count))), optional: optional)
        } else if let element = text.unwrapped(prefix: "list<").flatMap({ TypeDescriptor(storedCode: String($0)) }) {
            self.init(.list(element), optional: optional)
        } else if let element = text.unwrapped(prefix: "set<").flatMap({ TypeDescriptor(storedCode: String($0)) }) {
            self.init(.set(element), optional: optional)
        } else if let value = text.unwrapped(prefix: "map<").flatMap({ TypeDescriptor(storedCode: String($0)) }) {
            self.init(.map(value), optional: optional)
        } else {
            return nil
        }
    }
}
