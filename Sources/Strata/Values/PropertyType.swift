/// What a property holds, as the schema sees it: independent of the Swift spelling.
///
/// An immutable value; `Sendable`.
public indirect enum PropertyType: Hashable, Sendable, CustomStringConvertible {
    case bool, int, int8, int16, int32, int64, float, double
    case string, data, date, decimal128, uuid, objectId
    /// A link to an object of the named class (an `Object` or `EmbeddedObject` subclass).
    case object(className: String)
    /// An ordered list of elements (duplicates allowed).
    case list(_TypeDescriptor)
    /// A set of unique elements.
    case set(_TypeDescriptor)
    /// A map from strings to values.
    case map(_TypeDescriptor)
    /// A mixed value (`AnyValue`).
    case any
    /// The objects of `className` whose `property` links here (computed, never stored).
    case linkingObjects(className: String, property: String)

    public var description: String {
        switch self {
        case .object(let name): return name
        case .list(let element): return "List<\(element)>"
        case .set(let element): return "MutableSet<\(element)>"
        case .map(let value): return "Map<String, \(value)>"
        case .linkingObjects(let name, let property): return "LinkingObjects<\(name)>(\(property))"
        case .bool: return "Bool"
        case .int: return "Int"
        case .int8: return "Int8"
        case .int16: return "Int16"
        case .int32: return "Int32"
        case .int64: return "Int64"
        case .float: return "Float"
        case .double: return "Double"
        case .string: return "String"
        case .data: return "Data"
        case .date: return "Date"
        case .decimal128: return "Decimal128"
        case .uuid: return "UUID"
        case .objectId: return "ObjectId"
        case .any: return "AnyValue"
        }
    }
}

/// The module's name for `_TypeDescriptor`.
typealias TypeDescriptor = _TypeDescriptor

/// A property type with its optionality: what `_Persistable` types declare and what a
/// collection's elements are (`PropertyType.list`). Public for those two uses; not otherwise API
/// (a property's are ``PropertySchema/propertyType`` and ``PropertySchema/isOptional``).
///
/// An immutable value; `Sendable`.
public struct _TypeDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The type.
    public var type: PropertyType
    /// Whether `nil` is a value.
    public var isOptional: Bool

    /// Makes a descriptor.
    public init(_ type: PropertyType, optional: Bool = false) {
        self.type = type
        self.isOptional = optional
    }

    public var description: String { isOptional ? "\(type)?" : "\(type)" }
}
