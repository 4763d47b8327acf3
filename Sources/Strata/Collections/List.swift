/// An ordered list of values or objects: the to-many relationship and the array property.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var dogs: List<Dog>
///     @Persisted var tags: List<String>
/// }
/// try db.write { person.dogs.append(rex) }
/// ```
///
/// Duplicates are allowed. A list of objects holds links: deleting an object removes every
/// entry of it. A list of embedded objects owns them: removing one deletes it. An unmanaged list
/// is a plain array; a managed one reads and writes its owner's record (writes need
/// `Database.write { }`).
///
/// Thread safety: as the object that owns it.
public final class List<Element: _Persistable>: RandomAccessCollection, MutableCollection {
    private enum Backing {
        case unmanaged([Element])
        case managed(CollectionBinding)
    }

    private var backing: Backing

    /// An empty, unmanaged list.
    public init() { backing = .unmanaged([]) }

    /// An unmanaged list of `elements`.
    public init<S: Sequence>(_ elements: S) where S.Element == Element { backing = .unmanaged(Array(elements)) }

    init(binding: CollectionBinding) { backing = .managed(binding) }

    /// Whether a database manages the list.
    public var isManaged: Bool { if case .managed = backing { return true } else { return false } }

    /// The owner's property, for a managed list.
    var binding: CollectionBinding? { if case .managed(let binding) = backing { return binding } else { return nil } }

    private var storedElements: [FieldValue] {
        guard case .managed(let binding) = backing else { return [] }
        if case .list(let elements) = binding.field { return elements }
        return []
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int {
        switch backing {
        case .unmanaged(let elements): return elements.count
        case .managed: return storedElements.count
        }
    }

    /// The element at `position`; setting it replaces the element.
    /// - Precondition: `position` is a valid index; setting needs a write on a managed list.
    public subscript(position: Int) -> Element {
        get {
            switch backing {
            case .unmanaged(let elements): return elements[position]
            case .managed(let binding): return binding.element(storedElements[position], at: position, as: Element.self)
            }
        }
        set {
            mutate({ elements in elements[position] = newValue }, prepare: { try $0.stored(newValue) }) { stored, value in
                let old = stored[position]
                stored[position] = value
                return FieldEdit(removed: [old], added: [value], addedAt: position)
            }
        }
    }

    // MARK: Changing

    /// Adds an element at the end (an unmanaged object is added to the database too).
    /// - Complexity: amortized O(1) on a managed list in a write (as on an array), plus the
    ///   element's conversion.
    public func append(_ element: Element) {
        mutate({ $0.append(element) }, prepare: { try $0.stored(element) }) { stored, value in
            stored.append(value)
            return FieldEdit(added: [value], addedAt: stored.count - 1)
        }
    }

    /// Adds elements at the end.
    /// - Complexity: O(m) for m elements (amortized), plus their conversion.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        let new = Array(elements)
        mutate({ $0.append(contentsOf: new) }, prepare: { binding in try new.map { try binding.stored($0) } }) { stored, values in
            let first = stored.count
            stored.append(contentsOf: values)
            return FieldEdit(added: values, addedAt: first)
        }
    }

    /// Adds elements at the end: Realm's name for ``append(contentsOf:)``.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        append(contentsOf: elements)
    }

    /// Inserts an element at `index`.
    /// - Complexity: O(n - index) element moves, as an array's insert.
    public func insert(_ element: Element, at index: Int) {
        mutate({ $0.insert(element, at: index) }, prepare: { try $0.stored(element) }) { stored, value in
            stored.insert(value, at: index)
            return FieldEdit(added: [value], addedAt: index)
        }
    }

    /// Removes the element at `index` (an embedded object removed this way is deleted).
    /// - Complexity: O(n - index) element moves, as an array's remove; the first removal of a
    ///   link from a managed list in a write also counts the list's links once.
    public func remove(at index: Int) {
        mutate({ $0.remove(at: index) }) { stored in FieldEdit(removed: [stored.remove(at: index)]) }
    }

    /// Removes the last element.
    public func removeLast() {
        mutate({ $0.removeLast() }) { stored in FieldEdit(removed: [stored.removeLast()]) }
    }

    /// Removes the first element.
    public func removeFirst() {
        mutate({ $0.removeFirst() }) { stored in FieldEdit(removed: [stored.removeFirst()]) }
    }

    /// Removes every element.
    public func removeAll() {
        mutate({ $0.removeAll() }) { stored in
            let removed = stored
            stored = []
            return FieldEdit(removed: removed)
        }
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        mutate({ $0.insert($0.remove(at: from), at: to) }) { stored in
            stored.insert(stored.remove(at: from), at: to)
            return .none
        }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) { self[index] = object }

    /// Changes the list: an unmanaged one with `unmanaged`; a managed one with `managed`, given
    /// its stored elements (held by nothing else, so changed in place) and what `prepare`
    /// converted first (a conversion error fails the write, and nothing is changed).
    private func mutate<Prepared>(
        _ unmanaged: (inout [Element]) -> Void,
        prepare: (CollectionBinding) throws -> Prepared,
        managed: (inout [FieldValue], Prepared) -> FieldEdit
    ) {
        switch backing {
        case .unmanaged(var elements):
            backing = .unmanaged([])
            unmanaged(&elements)
            backing = .unmanaged(elements)
        case .managed(let binding):
            binding.edit(prepare: { try prepare(binding) }) { field, _, prepared in
                var stored: [FieldValue] = []
                if case .list(let elements) = field { stored = elements }
                field = .null
                let change = managed(&stored, prepared)
                field = .list(stored)
                return change
            }
        }
    }

    /// Changes the list without converting anything first (see the other `mutate`).
    private func mutate(_ unmanaged: (inout [Element]) -> Void, managed: (inout [FieldValue]) -> FieldEdit) {
        mutate(unmanaged, prepare: { _ in }) { stored, _ in managed(&stored) }
    }
}

extension List: _Persistable {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.list(Element._strataType)) }
    public static func _strataDefault() -> List { List() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> List {
        guard case .list(let elements) = value else { return List() }
        return List(elements.map { Element._strataRead($0, context) })
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        switch backing {
        case .unmanaged(let elements): return .list(try elements.map { try $0._strataWrite(context) })
        case .managed(let binding): return binding.field
        }
    }
    public static func _strataDecode(from decoder: any Decoder) throws -> List {
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        while !container.isAtEnd { elements.append(try Element._strataDecode(from: try container.superDecoder())) }
        return List(elements)
    }
    public static func _strataBind(owner: _ObjectState, index: Int) -> List? {
        List(binding: CollectionBinding(owner: owner, index: index))
    }
}
