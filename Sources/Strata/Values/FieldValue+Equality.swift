// What "equal" means for stored values: equal stored bytes. The same relation decides
// secondary-index entries (an index key holds the value's bytes), primary keys (the storage key
// is the value's bytes), `==`/`!=`/`IN` in queries between values of one type, the `.modified`
// comparison of an upsert, and the uniqueness of a `MutableSet` — so a value written is the value
// read, and an index finds exactly what a scan finds.
//
// - String: by UTF-8 bytes, with no Unicode normalization ("é" and "e\u{301}" differ), as Realm.
// - Float, Double, Date: by bit pattern (-0.0 and 0.0 differ; a NaN equals the same NaN).
// - Decimal128: by its 128 bits (1.0 and 1.00 differ). Ordering (`<`, sorting) stays numeric.
// - Collections and embedded objects: element by element, by the same rule.

extension FieldValue {
    public static func == (lhs: _FieldValue, rhs: _FieldValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.double(let a), .double(let b)), (.date(let a), .date(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.data(let a), .data(let b)): return a == b
        case (.decimal(let a), .decimal(let b)): return a.highBits == b.highBits && a.lowBits == b.lowBits
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.objectId(let a), .objectId(let b)): return a == b
        case (.link(let a), .link(let b)): return a == b
        case (.list(let a), .list(let b)), (.set(let a), .set(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.embedded(let classA, let idA, let a), .embedded(let classB, let idB, let b)):
            return classA == classB && idA == idB && a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let flag): hasher.combine(flag)
        case .int(let number): hasher.combine(number)
        case .float(let number): hasher.combine(number.bitPattern)
        case .double(let number), .date(let number): hasher.combine(number.bitPattern)
        case .string(let text): text.utf8.forEach { hasher.combine($0) }
        case .data(let data): hasher.combine(data)
        case .decimal(let decimal):
            hasher.combine(decimal.highBits)
            hasher.combine(decimal.lowBits)
        case .uuid(let uuid): hasher.combine(uuid)
        case .objectId(let id): hasher.combine(id)
        case .link(let key): hasher.combine(key)
        case .list(let elements), .set(let elements): hasher.combine(elements)
        case .map(let entries): hasher.combine(entries)
        case .embedded(let classID, let id, let fields):
            hasher.combine(classID)
            hasher.combine(id)
            hasher.combine(fields)
        }
    }
}

extension FieldValue.MapEntry {
    /// Keys by UTF-8 bytes, values by stored bytes (see `FieldValue.==`).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.key.utf8.elementsEqual(rhs.key.utf8) && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        key.utf8.forEach { hasher.combine($0) }
        hasher.combine(value)
    }
}
