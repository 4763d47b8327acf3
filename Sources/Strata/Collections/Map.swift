import StrataStorage

/// A dictionary from strings to values or objects.
///
/// ```swift
/// @Persisted var scores: Map<String, Int>
/// try db.write { person.scores["math"] = 9 }
/// ```
///
/// Keys may not contain `.` or start with `$` (a write with such a key fails with
/// `.invalidValue`, and nothing is written). Keys are told apart by their UTF-8 bytes, as every
/// stored string is (`"\u{E9}"` and `"e\u{301}"` are two keys), and ordered by them. Setting a
/// key to nil removes it. An unmanaged map
/// lives in memory; a managed one reads and writes its owner's record (writes need
/// `Database.write { }`).
///
/// Thread safety: as the object that owns it.
public final class Map<Key: _MapKey, Value: _Persistable>: Sequence {
    private enum Backing {
        case unmanaged([MapKeyBytes: Value])
        case managed(CollectionBinding)
    }

    private var backing: Backing

    /// An empty, unmanaged map.
    public init() { backing = .unmanaged([:]) }

    init(binding: CollectionBinding) { backing = .managed(binding) }

    /// Whether a database manages the map.
    public var isManaged: Bool { if case .managed = backing { return true } else { return false } }

    /// The owner's property, for a managed map.
    var binding: CollectionBinding? { if case .managed(let binding) = backing { return binding } else { return nil } }

    private var entries: [FieldValue.MapEntry] {
        guard case .managed(let binding) = backing, case .map(let entries) = binding.field else { return [] }
        return entries
    }

    /// The address of an unmanaged map's dictionary storage (nil for a managed map): tests
    /// check with it that a set changes the dictionary in place.
    var unmanagedStorageAddress: UInt? {
        guard case .unmanaged(let values) = backing else { return nil }
        return unsafeBitCast(values, to: UInt.self)
    }

    /// The number of entries.
    public var count: Int {
        switch backing {
        case .unmanaged(let values): return values.count
        case .managed: return entries.count
        }
    }

    /// The keys, in ascending order (by UTF-8 bytes), as Realm's `keys`.
    /// - Complexity: O(n log n) for an unmanaged map, O(n) for a managed one.
    public var keys: [Key] {
        switch backing {
        case .unmanaged(let values): return values.keys.sorted().map { Key(_strataMapKey: $0.text) }
        case .managed: return entries.map { Key(_strataMapKey: $0.key) }
        }
    }

    /// The values, in ascending key order (as ``keys``), as Realm's `values`.
    /// - Complexity: O(n).
    public var values: [Value] {
        var values: [Value] = []
        for (_, value) in self { values.append(value) }
        return values
    }

    /// The value of `key`; setting nil removes the key.
    /// - Complexity: O(log n) key comparisons for a managed map (a binary search of its sorted
    ///   keys; setting a new key also moves the entries after it, as an array's insert), O(1) on
    ///   average for an unmanaged one.
    public subscript(key: Key) -> Value? {
        get { self[string: key._strataMapKey] }
        set { self[string: key._strataMapKey] = newValue }
    }

    private subscript(string key: String) -> Value? {
        get {
            switch backing {
            case .unmanaged(let values): return values[MapKeyBytes(key)]
            case .managed(let binding):
                let entries = self.entries
                var compared = 0
                let (position, found) = MapKeyBytes.search(key, in: entries, compared: &compared)
                binding.database.transaction?.visitedElements += compared
                return found ? Value._strataRead(entries[position].value, binding.database) : nil
            }
        }
        set {
            switch backing {
            case .unmanaged(var values):
                backing = .unmanaged([:])  // so that `values` is the only reference, changed in place
                values[MapKeyBytes(key)] = newValue
                backing = .unmanaged(values)
            case .managed(let binding):
                binding.edit(prepare: { () throws -> FieldValue? in
                    try MapKeyBytes.check(key)
                    return try newValue.map { try binding.stored($0) }
                }) { field, _, value in
                    Self.set(key, to: value, in: &field, transaction: binding.database.transaction)
                }
            }
        }
    }

    /// Sets `key` to `value` (nil: removes it) in a stored map `field`, in place, found by a
    /// binary search of its keys (the comparisons are added to the write's `visitedElements`).
    /// - Complexity: O(log n) comparisons; inserting a new key moves the entries after it.
    private static func set(_ key: String, to value: FieldValue?, in field: inout FieldValue, transaction: WriteTransaction?) -> FieldEdit {
        var entries: [FieldValue.MapEntry] = []
        if case .map(let current) = field { entries = current }
        field = .null  // so that `entries` is the only reference, changed in place
        var compared = 0
        let (position, found) = MapKeyBytes.search(key, in: entries, compared: &compared)
        transaction?.visitedElements += compared
        var change = FieldEdit()
        if found { change.removed = [entries[position].value] }
        if let value {
            change.added = [value]
            if found {
                entries[position].value = value
            } else {
                entries.insert(FieldValue.MapEntry(key: key, value: value), at: position)
            }
        } else if found {
            entries.remove(at: position)
        }
        field = .map(entries)
        return change
    }

    /// Removes `key` and its value.
    public func removeObject(for key: Key) { self[key] = nil }

    /// Removes every entry.
    public func removeAll() {
        switch backing {
        case .unmanaged: backing = .unmanaged([:])
        case .managed(let binding):
            binding.edit { field, _ in
                guard case .map(let entries) = field else { return .none }
                field = .map([])
                return FieldEdit(removed: entries.map(\.value))
            }
        }
    }

    /// The entries, in ascending key order.
    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> {
        switch backing {
        case .unmanaged(let values):
            return values.sorted { $0.key < $1.key }.map { (key: Key(_strataMapKey: $0.key.text), value: $0.value) }.makeIterator()
        case .managed(let binding):
            return entries.map { (key: Key(_strataMapKey: $0.key), value: Value._strataRead($0.value, binding.database)) }.makeIterator()
        }
    }

}

extension Map: _Persistable {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.map(Value._strataType)) }
    public static func _strataDefault() -> Map { Map() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Map {
        let map = Map()
        if case .map(let entries) = value {
            for entry in entries { map[string: entry.key] = Value._strataRead(entry.value, context) }
        }
        return map
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        switch backing {
        case .unmanaged(let values):
            var entries: [FieldValue.MapEntry] = []
            for (key, value) in values {
                try MapKeyBytes.check(key.text)
                entries.append(FieldValue.MapEntry(key: key.text, value: try value._strataWrite(context)))
            }
            return .map(entries.sorted { MapKeyBytes($0.key) < MapKeyBytes($1.key) })
        case .managed(let binding): return binding.field
        }
    }
    public static func _strataDecode(from decoder: any Decoder) throws -> Map {
        let container = try decoder.container(keyedBy: CodingName.self)
        let map = Map()
        for key in container.allKeys {
            map[string: key.stringValue] = try Value._strataDecode(from: try container.superDecoder(forKey: key))
        }
        return map
    }
    public static func _strataBind(owner: _ObjectState, index: Int) -> Map? {
        Map(binding: CollectionBinding(owner: owner, index: index))
    }
}

/// The key types a `Map` may have: `String`.
public protocol _MapKey: Hashable {
    var _strataMapKey: String { get }
    init(_strataMapKey: String)
}

extension String: _MapKey {
    public var _strataMapKey: String { self }
    public init(_strataMapKey: String) { self = _strataMapKey }
}
