import Foundation

// Canonical Extended JSON scalars back to stored values (the table is in
// StoredSchema+ExtendedJSON.swift). Nil for anything else: the caller names what was wrong.

extension StoredSchema {
    /// The scalar of `type` that `json` holds, or nil when it holds none.
    static func scalarValue(_ json: JSONValue, type: PropertyType) -> FieldValue? {
        guard let value = scalarValueOfAnyKind(json) else { return nil }
        switch (type, value) {
        case (.int8, .int(let number)) where Int8(exactly: number) != nil: return value
        case (.int16, .int(let number)) where Int16(exactly: number) != nil: return value
        case (.int32, .int(let number)) where Int32(exactly: number) != nil: return value
        case (.int, .int), (.int64, .int), (.double, .double), (.bool, .bool), (.string, .string), (.data, .data),
             (.date, .date), (.decimal128, .decimal), (.uuid, .uuid), (.objectId, .objectId):
            return value
        case (.float, .double(let number)):
            let narrowed = Float(number)
            return Double(narrowed) == number || number.isNaN ? .float(narrowed) : nil
        default:
            return nil
        }
    }

    /// The scalar `json` holds, by its own form: a $numberInt or $numberLong is an int, a
    /// $numberDouble a double, $binary subtype 04 (16 bytes) a UUID, 00 data.
    static func scalarValueOfAnyKind(_ json: JSONValue) -> FieldValue? {
        switch json {
        case .bool(let flag): return .bool(flag)
        case .string(let text): return .string(text)
        case .object(let members) where members.count == 1:
            return wrappedScalar(members[0].key, members[0].value)
        default: return nil
        }
    }

    private static func wrappedScalar(_ key: String, _ inner: JSONValue) -> FieldValue? {
        switch key {
        case "$numberInt", "$numberLong": return inner.stringValue.flatMap { Int64($0) }.map(FieldValue.int)
        case "$numberDouble": return inner.stringValue.flatMap { Double($0) }.map(FieldValue.double)
        case "$numberDecimal": return inner.stringValue.flatMap { try? Decimal128(string: $0, exact: true) }.map(FieldValue.decimal)
        case "$oid": return inner.stringValue.flatMap { ObjectId($0) }.map(FieldValue.objectId)
        case "$date":
            guard let text = inner["$numberLong"]?.stringValue, let milliseconds = Int64(text) else { return nil }
            return .date(Double(milliseconds) / 1000 - Date.timeIntervalBetween1970AndReferenceDate)
        case "$binary":
            guard let base64 = inner["base64"]?.stringValue, let bytes = Data(base64Encoded: base64) else { return nil }
            switch inner["subType"]?.stringValue {
            case "00": return .data(bytes)
            case "04" where bytes.count == 16:
                var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
                return .uuid(UUID(uuid: uuid))
            default: return nil
            }
        default: return nil
        }
    }
}
