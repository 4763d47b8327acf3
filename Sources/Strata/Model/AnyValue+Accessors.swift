import Foundation

// Realm's `AnyRealmValue` accessors: each is the value when it holds that type, nil otherwise
// (no conversion: an `.int` has no `doubleValue`).
extension AnyValue {
    /// The value if it is an `Int`.
    /// - Complexity: O(1).
    public var intValue: Int? { if case .int(let value) = self { return value } else { return nil } }
    /// The value if it is a `Bool`.
    /// - Complexity: O(1).
    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    /// The value if it is a `Float`.
    /// - Complexity: O(1).
    public var floatValue: Float? { if case .float(let value) = self { return value } else { return nil } }
    /// The value if it is a `Double`.
    /// - Complexity: O(1).
    public var doubleValue: Double? { if case .double(let value) = self { return value } else { return nil } }
    /// The value if it is a `String`.
    /// - Complexity: O(1).
    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    /// The value if it is `Data`.
    /// - Complexity: O(1).
    public var dataValue: Data? { if case .data(let value) = self { return value } else { return nil } }
    /// The value if it is a `Date`.
    /// - Complexity: O(1).
    public var dateValue: Date? { if case .date(let value) = self { return value } else { return nil } }
    /// The value if it is an ``ObjectId``.
    /// - Complexity: O(1).
    public var objectIdValue: ObjectId? { if case .objectId(let value) = self { return value } else { return nil } }
    /// The value if it is a ``Decimal128``.
    /// - Complexity: O(1).
    public var decimal128Value: Decimal128? { if case .decimal128(let value) = self { return value } else { return nil } }
    /// The value if it is a `UUID`.
    /// - Complexity: O(1).
    public var uuidValue: UUID? { if case .uuid(let value) = self { return value } else { return nil } }
    /// The values if it is a list.
    /// - Complexity: O(1).
    public var listValue: [AnyValue]? { if case .list(let value) = self { return value } else { return nil } }
    /// The entries if it is a map (Realm's `dictionaryValue`).
    /// - Complexity: O(1).
    public var dictionaryValue: [String: AnyValue]? { if case .map(let value) = self { return value } else { return nil } }

    /// The object if it is one of class `objectType` (or a subclass), as Realm's
    /// `objectValue(_:)`.
    /// - Complexity: O(1).
    public func objectValue<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let object) = self { return object as? T } else { return nil }
    }
}
