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
    /// Iterative: a description read from stored bytes may nest any number of levels (the code
    /// it gives is refused by ``init(storedCode:)`` when it nests too deep).
    static func storedCode(fromDescription description: String) -> String {
        var text = TypeText(description)
        var wrappers: [(open: String, optional: Bool)] = []
        let containers = [("List<", "list<"), ("MutableSet<", "set<"), ("Map<String, ", "map<")]
        while true {
            let optional = text.dropOptional()
            guard let open = containers.first(where: { text.unwrap($0.0) })?.1 else {
                let scalars = [
                    "Bool": "bool", "Int": "int", "Int8": "int8", "Int16": "int16", "Int32": "int32",
                    "Int64": "int64", "Float": "float", "Double": "double", "String": "string", "Data": "data",
                    "Date": "date", "Decimal128": "decimal128", "UUID": "uuid", "ObjectId": "objectId",
                    "AnyValue": "mixed",
                ]
                let base = (scalars[text.string] ?? "object:\(text.string)") + (optional ? "?" : "")
                return wrappers.map(\.open).joined() + base + wrappers.reversed().map { ">" + ($0.optional ? "?" : "") }.joined()
            }
            wrappers.append((open, optional))
        }
    }
}

/// A type code's or description's UTF-8 bytes, narrowed from both ends in O(1) a step (so a
/// text nested n levels is read in O(n)).
private struct TypeText {
    private let bytes: [UInt8]
    private var lower = 0
    private var upper: Int

    init(_ text: String) {
        bytes = Array(text.utf8)
        upper = bytes.count
    }

    /// The text between the ends.
    var string: String { String(decoding: bytes[lower..<upper], as: UTF8.self) }

    /// Drops a trailing `?`; returns whether there was one.
    mutating func dropOptional() -> Bool {
        guard upper > lower, bytes[upper - 1] == UInt8(ascii: "?") else { return false }
        upper -= 1
        return true
    }

    /// Drops `prefix` and a closing `>` that ends the text; returns whether both were there.
    mutating func unwrap(_ prefix: String) -> Bool {
        let count = prefix.utf8.count
        guard upper - lower > count, bytes[upper - 1] == UInt8(ascii: ">"),
              bytes[lower..<(lower + count)].elementsEqual(prefix.utf8) else { return false }
        lower += count
        upper -= 1
        return true
    }
}

extension TypeDescriptor {
    /// Why a stored code names no type.
    enum StoredCodeProblem: Error {
        /// Not a code of the grammar at the top of the file.
        case unknown
        /// Lists, sets and maps nest deeper than `ObjectFormat.maxNesting` levels.
        case tooDeep
    }

    /// The type a stored code names, or nil when the code is not one: a catalog's code is
    /// stored bytes, so a damaged one is reported, not trusted.
    init?(storedCode code: String) {
        guard case .success(let type) = Self.parse(storedCode: code) else { return nil }
        self = type
    }

    /// The type `code` names, for the property `property` (`Class.name`), introduced in
    /// messages by `source` (such as "the schema catalog gives").
    /// - Throws: ``/StrataStorage/StrataError`` of kind `error` naming the property and, abbreviated, the code.
    static func checked(storedCode code: String, of property: String, in source: String, error: StrataError.Code) throws -> TypeDescriptor {
        switch parse(storedCode: code) {
        case .success(let type):
            return type
        case .failure(.unknown):
            throw StrataError(error, "\(source) gives \(property) the unknown type code '\(PredicateLexer.abbreviate(code))'")
        case .failure(.tooDeep):
            throw StrataError(error, "\(source) gives \(property) a type that nests lists, sets and maps more than \(ObjectFormat.maxNesting) levels deep ('\(PredicateLexer.abbreviate(code))')")
        }
    }

    /// The type a stored code names (the grammar at the top of the file), or why there is none.
    /// Iterative, and refuses more than `ObjectFormat.maxNesting` nested containers (the most a
    /// record holds), so no code can exhaust the stack here or in the recursive walks of the
    /// type (`storedCode`, `description`) after it.
    /// - Complexity: O(n) in the length of the code.
    static func parse(storedCode code: String) -> Result<TypeDescriptor, StoredCodeProblem> {
        var text = TypeText(code)
        var wrappers: [(container: (TypeDescriptor) -> PropertyType, optional: Bool)] = []
        let containers: [(prefix: String, make: (TypeDescriptor) -> PropertyType)] = [
            ("list<", { .list($0) }), ("set<", { .set($0) }), ("map<", { .map($0) }),
        ]
        while true {
            let optional = text.dropOptional()
            guard let container = containers.first(where: { text.unwrap($0.prefix) }) else {
                guard let base = baseType(text.string) else { return .failure(.unknown) }
                var type = TypeDescriptor(base, optional: optional)
                for wrapper in wrappers.reversed() { type = TypeDescriptor(wrapper.container(type), optional: wrapper.optional) }
                return .success(type)
            }
            guard wrappers.count < ObjectFormat.maxNesting else { return .failure(.tooDeep) }
            wrappers.append((container.make, optional))
        }
    }

    /// A scalar, `mixed` or `object:` code without its `?`.
    private static func baseType(_ text: String) -> PropertyType? {
        let scalars: [String: PropertyType] = [
            "bool": .bool, "int": .int, "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64,
            "float": .float, "double": .double, "string": .string, "data": .data, "date": .date,
            "decimal128": .decimal128, "uuid": .uuid, "objectId": .objectId, "mixed": .any,
        ]
        if let scalar = scalars[text] { return scalar }
        guard text.hasPrefix("object:"), text.count > "object:".count else { return nil }
        return .object(className: String(text.dropFirst("object:".count)))
    }
}
