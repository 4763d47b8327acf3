import Foundation
import StrataStorage

// How values enter a migration's new objects: converted from the old objects' values when the
// migration starts (`converted`), and from what a block sets (`value(_:for:at:)`).

extension Migration {
    /// A new object of `shape` with the properties `value` gives: a `[String: Any]` by name or
    /// an `[Any]` in property order. A top-level one is registered to be written.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` naming the property that does not convert.
    func makeObject(_ shape: ClassShape, from value: Any, at path: String) throws -> MigrationObject {
        let object = MigrationObject(shape: shape, values: shape.defaultValues, isNew: true, storedKey: nil, migration: self)
        if let dictionary = value as? [String: Any] {
            for (name, element) in dictionary {
                guard let index = shape.index(of: name) else { throw StrataError(.invalidValue, "\(path) has no property '\(name)'") }
                object.values[index] = try self.value(unwrapped(element), for: shape.properties[index].type, at: "\(path).\(name)")
            }
        } else if let array = value as? [Any] {
            guard array.count <= shape.properties.count else {
                throw StrataError(.invalidValue, "\(path): \(array.count) values for \(shape.properties.count) properties")
            }
            for (index, element) in array.enumerated() {
                object.values[index] = try self.value(unwrapped(element), for: shape.properties[index].type, at: "\(path).\(shape.properties[index].name)")
            }
        } else {
            throw StrataError(.invalidValue, "\(path): a \(type(of: value)) is not a dictionary or an array of property values")
        }
        if !shape.isEmbedded { createdObjects[shape.name, default: []].append(object) }
        return object
    }

    /// `value` as a value of a property of `type`, converting as `init(value:)` does.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` naming `path` when it does not convert.
    func value(_ value: Any?, for type: TypeDescriptor, at path: String) throws -> MigrationValue {
        guard let value = value.flatMap(unwrapped), !(value is NSNull) else {
            guard type.isOptional || type.type == .any else { throw StrataError(.invalidValue, "\(path) is required: nil cannot be stored") }
            return .null
        }
        switch type.type {
        case .object(let className):
            return .object(try object(value, of: className, at: path))
        case .list(let element), .set(let element):
            guard let array = value as? [Any] else { throw mismatch(value, type, path) }
            let elements = try array.map { try self.value(unwrapped($0), for: element, at: "\(path)[]") }
            if case .set = type.type { return .set(elements) }
            return .list(elements)
        case .map(let element):
            guard let dictionary = value as? [String: Any] else { throw mismatch(value, type, path) }
            return .map(try dictionary.map { key, element2 in
                try MapKeyBytes.check(key)
                return (key: key, value: try self.value(unwrapped(element2), for: element, at: "\(path)[\(key)]"))
            })
        case .any:
            if let object = value as? MigrationObject { return .object(object.isNew ? object : newVersion(of: object)) }
            return .scalar(try scalar(value, type, path))
        default:
            return .scalar(try scalar(value, type, path))
        }
    }

    /// The object a link or embedded property of class `className` is set to: a migration
    /// object of that class (an old one stands for its new version), or a dictionary or array
    /// of a new one's values.
    private func object(_ value: Any, of className: String, at path: String) throws -> MigrationObject {
        if let object = value as? MigrationObject {
            guard let new = object.isNew ? object : newVersion(of: object), new.className == className else {
                throw StrataError(.invalidValue, "\(path) links to \(className), not to \(object.className)")
            }
            return new
        }
        guard let shape = newShapes[className] else { throw StrataError(.invalidValue, "\(path): \(className) is not a declared class") }
        return try makeObject(shape, from: value, at: path)
    }

    /// `value` as the stored scalar of `type`, the error naming `path`.
    private func scalar(_ value: Any, _ type: TypeDescriptor, _ path: String) throws -> FieldValue {
        do {
            return try FieldValue.converting(value, to: type.type)
        } catch {
            throw StrataError.inContext(path, error)
        }
    }

    private func mismatch(_ value: Any, _ type: TypeDescriptor, _ path: String) -> StrataError {
        StrataError(.invalidValue, "\(path) is \(type), not \(Swift.type(of: value))")
    }

    /// The new form of an old value going from `old` to `new`, or nil when it has none (the
    /// property then takes its default): the same value for the same type, a null only for an
    /// optional, an integer of another width when it fits, collections element by element,
    /// objects as their new versions.
    func converted(_ value: MigrationValue, from old: TypeDescriptor, to new: TypeDescriptor) -> MigrationValue? {
        if value.isNull { return new.isOptional || new.type == .any ? .null : nil }
        switch (old.type, new.type, value) {
        case (.object(let a), .object(let b), .object(let object?)) where a == b:
            return newVersion(of: object).map { .object($0) }
        case (.list(let a), .list(let b), .list(let elements)):
            return convertedElements(elements, from: a, to: b).map(MigrationValue.list)
        case (.set(let a), .set(let b), .set(let elements)):
            return convertedElements(elements, from: a, to: b).map(MigrationValue.set)
        case (.map(let a), .map(let b), .map(let entries)):
            let values = convertedElements(entries.map(\.value), from: a, to: b)
            return values.map { .map(Array(zip(entries.map(\.key), $0)).map { (key: $0.0, value: $0.1) }) }
        case (.any, .any, _):
            return mappingObjects(value)
        case (_, _, .scalar(let field)) where old.type == new.type:
            return .scalar(field)
        case (_, _, .scalar(.int(let number))) where old.type.isInteger && new.type.isInteger:
            return (try? FieldValue.converting(number, to: new.type)).map(MigrationValue.scalar)
        default:
            return nil
        }
    }

    private func convertedElements(_ elements: [MigrationValue], from old: TypeDescriptor, to new: TypeDescriptor) -> [MigrationValue]? {
        var result: [MigrationValue] = []
        for element in elements {
            guard let converted = converted(element, from: old, to: new) else { return nil }
            result.append(converted)
        }
        return result
    }

    /// A mixed value with its objects as their new versions.
    private func mappingObjects(_ value: MigrationValue) -> MigrationValue {
        switch value {
        case .object(let object): return .object(object.flatMap(newVersion))
        case .list(let elements): return .list(elements.map(mappingObjects))
        case .set(let elements): return .set(elements.map(mappingObjects))
        case .map(let entries): return .map(entries.map { (key: $0.key, value: mappingObjects($0.value)) })
        case .scalar: return value
        }
    }

    /// The new version of an old object: a stored object's counterpart; for an embedded one, a
    /// new object of its class made from its values the first time (registered to be written
    /// when its class is top-level now), the same one after. Nil when its class is not
    /// declared.
    func newVersion(of old: MigrationObject) -> MigrationObject? {
        guard old.storedKey == nil, old.counterpart == nil else { return old.counterpart }
        guard let shape = newShapes[old.className] else { return nil }
        let new = MigrationObject(shape: shape, values: shape.defaultValues, isNew: true, storedKey: nil, migration: self)
        old.counterpart = new
        fill(new, from: old)
        if !shape.isEmbedded { createdObjects[shape.name, default: []].append(new) }
        return new
    }

    /// Sets each property of `new` that `old` has to its converted value.
    func fill(_ new: MigrationObject, from old: MigrationObject) {
        let oldIndexes = propertyMatches(new.shape, old.shape)
        for (index, property) in new.shape.properties.enumerated() {
            guard let oldIndex = oldIndexes[index] else { continue }
            if let value = converted(old.values[oldIndex], from: old.shape.properties[oldIndex].type, to: property.type) {
                new.values[index] = value
            }
        }
    }

    /// For each property of a class's new shape, the position of the same name in its old
    /// shape (worked out once per class).
    private func propertyMatches(_ new: ClassShape, _ old: ClassShape) -> [Int?] {
        if let known = matches[new.name] { return known }
        let found = new.properties.map { old.index(of: $0.name) }
        matches[new.name] = found
        return found
    }
}

/// `value` without the optionals around it (nil for a nil inside).
func unwrapped(_ value: Any) -> Any? {
    guard let optional = value as? any OptionalValue else { return value }
    return optional.wrappedAny.flatMap(unwrapped)
}

extension PropertyType {
    /// Whether this is an integer of some width.
    var isInteger: Bool {
        switch self {
        case .int, .int8, .int16, .int32, .int64: return true
        default: return false
        }
    }
}
