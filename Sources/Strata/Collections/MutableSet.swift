/// An unordered set of unique values or objects.
///
/// ```swift
/// @Persisted var nicknames: MutableSet<String>
/// try db.write { person.nicknames.insert("A") }
/// ```
///
/// A set of objects holds links (deleting an object removes it). Embedded objects cannot be
/// set elements. An unmanaged set lives in memory; a managed one reads and writes its owner's
/// record (writes need `Database.write { }`).
///
/// Thread safety: as the object that owns it.
public final class MutableSet<Element: _Persistable>: Collection {
    private enum Backing {
        case unmanaged([Element])
        case managed(CollectionBinding)
    }

    private var backing: Backing

    /// An empty, unmanaged set.
    public init() { backing = .unmanaged([]) }

    init(binding: CollectionBinding) { backing = .managed(binding) }

    /// Whether a database manages the set.
    public var isManaged: Bool { if case .managed = backing { return true } else { return false } }

    /// The owner's property, for a managed set.
    var binding: CollectionBinding? { if case .managed(let binding) = backing { return binding } else { return nil } }

    private var stored: [FieldValue] {
        guard case .managed(let binding) = backing, case .set(let elements) = binding.field else { return [] }
        return elements
    }

    /// Whether two elements are the same member: the same object (or the same stored object),
    /// or equal stored values.
    private static func same(_ lhs: Element, _ rhs: Element) -> Bool {
        if let left = lhs as? ObjectBase, let right = rhs as? ObjectBase {
            if left === right { return true }
            guard let leftState = left._strataState, let rightState = right._strataState else { return false }
            return leftState.key == rightState.key
        }
        return (try? lhs._strataWrite(nil)) == (try? rhs._strataWrite(nil))
    }

    /// An element's stored form for comparing with a managed set's members.
    private static func storedForm(_ element: Element) -> FieldValue? {
        if let object = element as? ObjectBase {
            guard let state = object._strataState else { return nil }
            return .link(state.key)
        }
        return try? element._strataWrite(nil)
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int {
        if case .unmanaged(let elements) = backing { return elements.count }
        return stored.count
    }

    /// The element at `position` (in no particular order).
    public subscript(position: Int) -> Element {
        switch backing {
        case .unmanaged(let elements): return elements[position]
        case .managed(let binding): return binding.element(stored[position], at: position, as: Element.self)
        }
    }

    public func index(after i: Int) -> Int { i + 1 }

    // MARK: Set operations

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        switch backing {
        case .unmanaged(let elements): return elements.contains { Self.same($0, element) }
        case .managed:
            guard let form = Self.storedForm(element) else { return false }
            return stored.contains(form)
        }
    }

    /// Adds `element` unless it is there already.
    /// - Complexity: amortized O(1) on a managed set in a write once the write has hashed the
    ///   set's elements (O(n), at its first insert or removal there); O(n) on an unmanaged set.
    public func insert(_ element: Element) {
        switch backing {
        case .unmanaged(var elements):
            guard !elements.contains(where: { Self.same($0, element) }) else { return }
            backing = .unmanaged([])  // so that `elements` is the only reference, changed in place
            elements.append(element)
            backing = .unmanaged(elements)
        case .managed(let binding):
            binding.edit(prepare: { try binding.stored(element) }) { field, cache, value in
                var elements: [FieldValue] = []
                if case .set(let current) = field { elements = current }
                guard Self.insertMember(value, of: elements, into: &cache, transaction: binding.database.transaction) else {
                    return .none
                }
                field = .null  // so that `elements` is the only reference, changed in place
                elements.append(value)
                field = .set(elements)
                return FieldEdit(added: [value])
            }
        }
    }

    /// Removes `element` if it is there.
    /// - Complexity: O(n) (the elements after it move); O(1) on a managed set in a write that
    ///   has hashed its elements when `element` is not there.
    public func remove(_ element: Element) {
        switch backing {
        case .unmanaged(var elements):
            backing = .unmanaged([])
            elements.removeAll { Self.same($0, element) }
            backing = .unmanaged(elements)
        case .managed(let binding):
            guard let form = Self.storedForm(element) else { return }
            binding.edit { field, cache in
                guard case .set(var elements) = field, cache.members?.contains(form) != false else { return .none }
                field = .null
                let count = elements.count
                elements.removeAll { $0 == form }
                binding.database.transaction?.visitedElements += count
                cache.members?.remove(form)
                field = .set(elements)
                return FieldEdit(removed: Array(repeating: form, count: count - elements.count))
            }
        }
    }

    /// Removes every element.
    public func removeAll() {
        switch backing {
        case .unmanaged: backing = .unmanaged([])
        case .managed(let binding):
            binding.edit { field, cache in
                guard case .set(let elements) = field else { return .none }
                field = .set([])
                cache.members = []
                return FieldEdit(removed: elements)
            }
        }
    }

    /// Adds `value` to the members of a stored set whose elements are `elements`, as `cache`
    /// holds them (hashed from `elements` when it holds none); false when it is one already.
    /// The elements hashed and looked up are added to the write's `visitedElements`.
    private static func insertMember(
        _ value: FieldValue, of elements: [FieldValue], into cache: inout FieldCache, transaction: WriteTransaction?
    ) -> Bool {
        if cache.members == nil {
            cache.members = Set(elements)
            transaction?.visitedElements += elements.count
        }
        transaction?.visitedElements += 1
        return cache.members!.insert(value).inserted
    }

    /// Adds every element of `other` that is not in the set, as Realm's `formUnion(_:)`.
    /// - Precondition: inside a write when the set is managed (as ``insert(_:)``).
    /// - Complexity: O(m) inserts for m elements in `other`.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { insert(element) }
    }

    /// Keeps only the elements also in `other` (elements compared as ``contains(_:)`` compares
    /// them), as Realm's `formIntersection(_:)`.
    /// - Precondition: inside a write when the set is managed (as ``remove(_:)``).
    /// - Complexity: O(n·m) for n elements here and m in `other`.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Array(other)
        for element in Array(self) where !keep.contains(where: { Self.same($0, element) }) {
            remove(element)
        }
    }

    /// Removes the elements of `other`, as Realm's `subtract(_:)`.
    /// - Precondition: inside a write when the set is managed (as ``remove(_:)``).
    /// - Complexity: O(m) removals for m elements in `other`.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { remove(element) }
    }

    /// Whether every element of this set is in `possibleSuperset` (elements compared as
    /// ``contains(_:)`` compares them), as Realm's `isSubset(of:)`.
    /// - Complexity: O(n·m) for n elements here and m in `possibleSuperset`.
    public func isSubset<S: Sequence>(of possibleSuperset: S) -> Bool where S.Element == Element {
        let superset = Array(possibleSuperset)
        return allSatisfy { element in superset.contains { Self.same($0, element) } }
    }

    /// Whether this set and `other` have an element in common, as Realm's `intersects(_:)`.
    /// - Complexity: O(m) lookups of ``contains(_:)`` for m elements in `other`.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        other.contains { contains($0) }
    }
}

extension MutableSet: _Persistable {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.set(Element._strataType)) }
    public static func _strataDefault() -> MutableSet { MutableSet() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> MutableSet {
        let set = MutableSet()
        if case .set(let elements) = value {
            for element in elements { set.insert(Element._strataRead(element, context)) }
        }
        return set
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        switch backing {
        case .unmanaged(let elements):
            var values: [FieldValue] = []
            for element in elements {
                let value = try element._strataWrite(context)
                if !values.contains(value) { values.append(value) }
            }
            return .set(values)
        case .managed(let binding): return binding.field
        }
    }
    public static func _strataDecode(from decoder: any Decoder) throws -> MutableSet {
        var container = try decoder.unkeyedContainer()
        let set = MutableSet()
        while !container.isAtEnd { set.insert(try Element._strataDecode(from: try container.superDecoder())) }
        return set
    }
    public static func _strataBind(owner: _ObjectState, index: Int) -> MutableSet? {
        MutableSet(binding: CollectionBinding(owner: owner, index: index))
    }
}
