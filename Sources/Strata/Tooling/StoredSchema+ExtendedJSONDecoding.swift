import Foundation
import StrataStorage

// Reading canonical Extended JSON (StoredSchema+ExtendedJSON.swift has the table) back into
// stored values, by the stored schema: what `strata import` writes. Anything that does not fit
// the property's type is `.invalidValue` naming the property; nothing here traps.

extension StoredSchema {
    /// The stored value of `json` for a property of `type`. `identity` numbers the embedded
    /// objects of one record (each gets the next, from 1).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` when `json` is not a value of `type`.
    func fieldValue(_ json: JSONValue, type: TypeDescriptor, identity: inout UInt64) throws -> FieldValue {
        if json == .null {
            guard type.isOptional || type.type == .any else { throw Self.misfit(json, type) }
            return .null
        }
        switch (type.type, json) {
        case (.list(let element), .array(let items)):
            return .list(try items.map { try fieldValue($0, type: element, identity: &identity) })
        case (.set(let element), .array(let items)):
            let elements = try items.map { try fieldValue($0, type: element, identity: &identity) }
            guard Set(elements).count == elements.count else { throw StrataError(.invalidValue, "a set holds a value twice") }
            return .set(elements)
        case (.map(let element), .object(let members)):
            for member in members { try MapKeyBytes.check(member.key) }   // the rule of every map
            let entries = try members.map { FieldValue.MapEntry(key: $0.key, value: try fieldValue($0.value, type: element, identity: &identity)) }
            return .map(entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
        case (.object(let className), _):
            return try objectValue(json, className: className, identity: &identity)
        case (.any, _):
            return try mixedValue(json)
        default:
            guard let value = Self.scalarValue(json, type: type.type) else { throw Self.misfit(json, type) }
            return value
        }
    }

    /// A link (the target's key) or an embedded object (a document).
    private func objectValue(_ json: JSONValue, className: String, identity: inout UInt64) throws -> FieldValue {
        guard let target = storedClass(named: className) else {
            throw StrataError(.invalidValue, "the schema has no class \(className)")
        }
        guard target.isEmbedded else { return .link(try objectKey(json, of: target)) }
        guard case .object = json else { throw StrataError(.invalidValue, "an embedded \(className) is not a document") }
        identity += 1
        let id = identity
        return .embedded(classID: target.id, id: id, fields: try fields(of: json, by: target, identity: &identity))
    }

    /// The fields of a document by the properties of `storedClass`; a member the document
    /// lacks is the property's empty value, a member the class lacks is refused.
    func fields(of document: JSONValue, by storedClass: StoredClass, identity: inout UInt64) throws -> [FieldValue.Field] {
        guard case .object(let members) = document else { throw StrataError(.invalidValue, "a \(storedClass.name) is not a document") }
        for member in members where member.key != "_id" && storedClass.property(named: member.key) == nil {
            throw StrataError(.invalidValue, "\(storedClass.name) has no property \(member.key)")
        }
        return try storedClass.properties.map { property in
            do {
                let value = try document[property.name].map { try fieldValue($0, type: property.type, identity: &identity) }
                return FieldValue.Field(id: property.id, value: value ?? property.type.emptyValue)
            } catch {
                throw StrataError.inContext("\(storedClass.name).\(property.name)", error)
            }
        }
    }

    /// The storage key of a `storedClass` object from its Extended JSON key: its primary key's
    /// value, or the ObjectId of its generated key.
    func objectKey(_ json: JSONValue, of storedClass: StoredClass) throws -> ObjectKey {
        var unused: UInt64 = 0
        if let primaryKey = storedClass.primaryKey {
            let value = try fieldValue(json, type: primaryKey.type, identity: &unused)
            guard let key = PrimaryKeyEncoding.key(for: value, optional: primaryKey.isOptional) else {
                throw StrataError(.invalidValue, "\(json.rendered()) is not a \(storedClass.name) primary key")
            }
            return ObjectKey(classID: storedClass.id, key: key)
        }
        guard case .objectId(let id)? = Self.scalarValue(json, type: .objectId) else {
            throw StrataError(.invalidValue, "a \(storedClass.name) key must be an {\"$oid\": …}, not \(json.rendered())")
        }
        return ObjectKey(classID: storedClass.id, key: StorageKey(id.bytes))
    }

    /// An AnyValue: a DBRef is a link, an array a list, another document a map.
    private func mixedValue(_ json: JSONValue) throws -> FieldValue {
        switch json {
        case .object(let members) where members.first?.key.hasPrefix("$") != true:
            for member in members { try MapKeyBytes.check(member.key) }
            return .map(try members.map { .init(key: $0.key, value: try mixedValue($0.value)) }
                .sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
        case .array(let items):
            return .list(try items.map(mixedValue))
        default:
            if let className = json["$ref"]?.stringValue, let id = json["$id"] {
                guard let target = storedClass(named: className), !target.isEmbedded else {
                    throw StrataError(.invalidValue, "a DBRef names \(className), which is not a stored class")
                }
                return .link(try objectKey(id, of: target))
            }
            guard let value = Self.scalarValueOfAnyKind(json) else { throw StrataError(.invalidValue, "\(json.rendered()) is not an AnyValue") }
            return value
        }
    }

    private static func misfit(_ json: JSONValue, _ type: TypeDescriptor) -> StrataError {
        StrataError(.invalidValue, "\(json.rendered()) is not a value of type \(type)")
    }
}
