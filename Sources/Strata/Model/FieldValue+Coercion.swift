import Foundation

// An untyped Swift value as the stored scalar of a property type, for code that has the type as
// a `PropertyType` rather than as a Swift type (a migration's objects): it converts through the
// Swift type's `_strataConvert`, so the rules are `init(value:)`'s (Persistable+Conversion.swift).

extension FieldValue {
    /// `value` as the stored form of a scalar of `type`.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` saying what was expected, when it does not
    ///   convert, or when `type` is a link, a collection or an embedded object (not a scalar).
    static func converting(_ value: Any, to type: PropertyType) throws -> FieldValue {
        switch type {
        case .bool: return try Bool._strataConvert(value)._strataWrite(nil)
        case .int: return try Int._strataConvert(value)._strataWrite(nil)
        case .int8: return try Int8._strataConvert(value)._strataWrite(nil)
        case .int16: return try Int16._strataConvert(value)._strataWrite(nil)
        case .int32: return try Int32._strataConvert(value)._strataWrite(nil)
        case .int64: return try Int64._strataConvert(value)._strataWrite(nil)
        case .float: return try Float._strataConvert(value)._strataWrite(nil)
        case .double: return try Double._strataConvert(value)._strataWrite(nil)
        case .string: return try String._strataConvert(value)._strataWrite(nil)
        case .data: return try Data._strataConvert(value)._strataWrite(nil)
        case .date: return try Date._strataConvert(value)._strataWrite(nil)
        case .decimal128: return try Decimal128._strataConvert(value)._strataWrite(nil)
        case .uuid: return try UUID._strataConvert(value)._strataWrite(nil)
        case .objectId: return try ObjectId._strataConvert(value)._strataWrite(nil)
        case .any: return try AnyValue._strataConvert(value)._strataWrite(nil)
        case .object, .list, .set, .map, .linkingObjects:
            throw StrataError(.invalidValue, "\(type) is not a scalar type")
        }
    }
}
