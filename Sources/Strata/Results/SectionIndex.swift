import StrataStorage

/// Not API: what a `SectionedResults` and its sections read — their results, the function
/// that gives each object its section key, and the sections it found for a database version.
/// Shared by copies of the sectioned results and by the sections they hand out.
///
/// ```
///   results (in order)   rex  rover  fido  rusty     key: first letter
///   positions             0     1     2     3
///   sections             ┌─ "F": [2] ─┬─ "R": [0, 1, 3] ─┐
/// ```
///
/// Invariant: at a given version each object of the results is in exactly one section, and the
/// positions of a section are increasing (the results' order).
///
/// Thread safety: used by one thread at a time, as the results it reads; not `Sendable`, since
/// the key function is the caller's closure.
final class SectionIndex<Key: Hashable, Element: Object> {
    /// One section: its key and the positions in `results` of its objects.
    struct Section {
        let key: Key
        var positions: [Int]
    }

    /// The sections at one version, in order, and each key's section.
    struct Layout {
        var sections: [Section] = []
        var indexByKey: [Key: Int] = [:]
    }

    let results: Results<Element>
    let sectionKey: (Element) -> Key
    let order: SectionOrder
    private var version = -1
    private var cached = Layout()

    init(results: Results<Element>, sectionKey: @escaping (Element) -> Key, order: SectionOrder) {
        self.results = results
        self.sectionKey = sectionKey
        self.order = order
    }

    /// The sections at the database's current version, evaluated at most once per version.
    /// - Complexity: O(n) the first time for a version (plus O(s log s) for s sections ordered
    ///   by key), and the results' evaluation; then O(1).
    var layout: Layout {
        // The version is read first: a commit while evaluating makes the next read evaluate again.
        let now = results.database.readVersion()
        if now != version {
            cached = evaluate()
            version = now
        }
        return cached
    }

    /// The positions of the objects of the section with `key`, empty when there is none.
    func positions(of key: Key) -> [Int] {
        let layout = self.layout
        guard let index = layout.indexByKey[key] else { return [] }
        return layout.sections[index].positions
    }

    /// The same sectioning over `results` (frozen or thawed).
    func moved(to results: Results<Element>) -> SectionIndex {
        SectionIndex(results: results, sectionKey: sectionKey, order: order)
    }

    private func evaluate() -> Layout {
        var layout = Layout()
        for (position, element) in results.enumerated() {
            let key = sectionKey(element)
            if let index = layout.indexByKey[key] {
                layout.sections[index].positions.append(position)
            } else {
                layout.indexByKey[key] = layout.sections.count
                layout.sections.append(Section(key: key, positions: [position]))
            }
        }
        guard case .byKey(let ascending) = order,
              let permutation = SectionKeyOrder.sortedIndices(layout.sections.map(\.key), ascending: ascending)
        else { return layout }
        layout.sections = permutation.map { layout.sections[$0] }
        for (index, section) in layout.sections.enumerated() { layout.indexByKey[section.key] = index }
        return layout
    }
}

/// How a `SectionedResults` orders its sections.
enum SectionOrder {
    /// In the order their first objects come in the results (Realm's, for sections whose key
    /// follows from the primary sort descriptor).
    case firstAppearance
    /// By key, `<` of the key's type (nil first ascending, last descending); in the order of
    /// first appearance when the keys are not `Comparable` (such as `Bool` or `Data`).
    case byKey(ascending: Bool)
}

/// Orders section keys of any `Hashable` type by `<` when their values are `Comparable`, an
/// optional key by its wrapped value (nil first). Checked at run time, once per evaluation:
/// `String?` keys are ordered although `Optional` is not `Comparable`.
enum SectionKeyOrder {
    /// The positions of `keys` in order, ties in their given order; nil when some key's value is
    /// not `Comparable`, or the values are not all of one type.
    /// - Complexity: O(s log s) comparisons for s keys.
    static func sortedIndices<Key>(_ keys: [Key], ascending: Bool) -> [Int]? {
        var values: [(position: Int, value: (any Comparable)?)] = []
        values.reserveCapacity(keys.count)
        var valueType: ObjectIdentifier?
        for (position, key) in keys.enumerated() {
            guard let flat = flattened(key) else {
                values.append((position, nil))
                continue
            }
            guard let comparable = flat as? any Comparable else { return nil }
            let type = ObjectIdentifier(Swift.type(of: comparable))
            if let valueType, valueType != type { return nil }
            valueType = type
            values.append((position, comparable))
        }
        values.sort { lhs, rhs in
            switch (lhs.value, rhs.value) {
            case (nil, nil): break
            case (nil, _): return ascending
            case (_, nil): return !ascending
            case (let left?, let right?):
                if less(left, right) { return ascending }
                if less(right, left) { return !ascending }
            }
            return lhs.position < rhs.position
        }
        return values.map(\.position)
    }

    /// `lhs < rhs` for values of one `Comparable` type (false for values of two types).
    private static func less<T: Comparable>(_ lhs: T, _ rhs: any Comparable) -> Bool {
        guard let rhs = rhs as? T else { return false }
        return lhs < rhs
    }

    /// The value of `key`, through any number of optionals; nil for a nil key.
    static func flattened<K>(_ key: K) -> Any? {
        if let optional = key as? any FlattenableOptional { return optional.flattenedValue }
        return key
    }
}

/// An `Optional` seen through `Any`, for `SectionKeyOrder`.
protocol FlattenableOptional {
    /// The wrapped value, through nested optionals; nil when there is none.
    var flattenedValue: Any? { get }
}

extension Optional: FlattenableOptional {
    var flattenedValue: Any? {
        guard case .some(let wrapped) = self else { return nil }
        if let inner = wrapped as? any FlattenableOptional { return inner.flattenedValue }
        return wrapped
    }
}
