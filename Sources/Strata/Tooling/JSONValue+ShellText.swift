import Foundation

// Extended JSON as the MongoDB shell prints it, for people (`strata inspect` without --json):
// 3 for {"$numberLong": "3"}, ObjectId("…"), ISODate("…"), UUID("…"), Decimal128("…"),
// BinData(0, "…"), DBRef("Dog", …); members as `name: value`.

extension JSONValue {
    /// The shell's text of this value, on one line.
    public var shellText: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string: return rendered()
        case .array(let items): return "[" + items.map(\.shellText).joined(separator: ", ") + "]"
        case .object(let members):
            if let wrapped = wrappedShellText(members) { return wrapped }
            return "{" + members.map { "\($0.key): \($0.value.shellText)" }.joined(separator: ", ") + "}"
        }
    }

    private func wrappedShellText(_ members: [Member]) -> String? {
        if members.count == 2, let ref = self["$ref"]?.stringValue, let id = self["$id"] {
            return "DBRef(\(JSONValue.string(ref).rendered()), \(id.shellText))"
        }
        guard members.count == 1 else { return nil }
        let inner = members[0].value
        switch (members[0].key, inner.stringValue) {
        case ("$numberLong", let text?), ("$numberInt", let text?), ("$numberDouble", let text?): return text
        case ("$numberDecimal", let text?): return "Decimal128(\"\(text)\")"
        case ("$oid", let text?): return "ObjectId(\"\(text)\")"
        case ("$date", nil):
            guard let text = inner["$numberLong"]?.stringValue, let milliseconds = Double(text) else { return nil }
            let date = Date(timeIntervalSince1970: milliseconds / 1000)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return "ISODate(\"\(formatter.string(from: date))\")"
        case ("$binary", nil):
            guard let base64 = inner["base64"]?.stringValue, let subType = inner["subType"]?.stringValue else { return nil }
            if subType == "04", let bytes = Data(base64Encoded: base64), bytes.count == 16 {
                let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
                return "UUID(\"\(uuid.uuidString.lowercased())\")"
            }
            return "BinData(\(Int(subType, radix: 16) ?? 0), \"\(base64)\")"
        default: return nil
        }
    }
}
