// Realm's `sectioned(by:…)` family: results grouped into sections by a key, as
// `SectionedResults`. Each form sorts the results first, then groups them.

extension Results {
    /// The objects grouped by the value of `keyPath`, as Realm's `sectioned(by:ascending:)`:
    ///
    /// ```swift
    /// extension Dog { var firstLetter: String { String(name.prefix(1)) } }
    /// let byLetter = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
    /// let byAge = db.objects(Dog.self).sectioned(by: \.age, ascending: false)
    /// ```
    ///
    /// The key path may be a persisted property (through to-one links: `\.dog.age`) or a
    /// computed one. The results are first sorted by the persisted property the key path reads
    /// (as Realm, which finds it the same way), so a section's objects come in that order; a
    /// computed property that reads no persisted property, or more than one, leaves the
    /// results' order. Sections come in key order by `<` when the key's type is `Comparable`
    /// (an optional key: nil first ascending, as Realm), otherwise (a `Bool`) in the order of
    /// the sorted results.
    /// - Complexity: O(1); each evaluation (once per database version) sorts the results and
    ///   computes every object's key: O(n log n).
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        let sorted = sortPath(for: keyPath).map { path in
            Results(query: query.sorted(by: [QuerySortKey(path: path, ascending: ascending)]))
        } ?? self
        return SectionedResults(index: SectionIndex(
            results: sorted, sectionKey: { $0[keyPath: keyPath] }, order: .byKey(ascending: ascending)))
    }

    /// The objects sorted by `sortDescriptors`, then grouped by the value of `keyPath`, as
    /// Realm's `sectioned(by:sortDescriptors:)`. Sections come in the order of their first
    /// objects in the sorted results, so the primary sort descriptor should decide the key
    /// (Realm requires it to name the key path; Strata does not check).
    /// - Precondition: every sort key path names a property, or one through to-one links
    ///   (Realm raises an exception otherwise); see ``sectioned(by:checking:)``.
    /// - Complexity: O(1); each evaluation sorts and computes every key: O(n log n).
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(by: { $0[keyPath: keyPath] }, sortDescriptors: sortDescriptors)
    }

    /// The objects sorted by `sortDescriptors`, then grouped by the key `block` gives each, as
    /// Realm's `sectioned(by:sortDescriptors:)`:
    ///
    /// ```swift
    /// let sections = db.objects(Dog.self).sectioned(by: { $0.age / 10 }, sortDescriptors: ["age"])
    /// ```
    ///
    /// Sections come in the order of their first objects in the sorted results. `block` is
    /// called on the thread that reads the sections, and on the delivery queue of an
    /// observation: it should depend only on the object.
    /// - Precondition: every sort key path names a property, or one through to-one links
    ///   (Realm raises an exception otherwise); see ``sectioned(by:checking:)``.
    /// - Complexity: O(1); each evaluation sorts and computes every key: O(n log n).
    public func sectioned<Key: Hashable>(
        by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        trapping { try sectioned(by: block, checking: sortDescriptors) }
    }

    /// Realm's protocol form of `sectioned(by:sortDescriptors:)`, the block last.
    /// - Precondition: as `sectioned(by:sortDescriptors:)`.
    /// - Complexity: O(1); each evaluation sorts and computes every key: O(n log n).
    public func sectioned<Key: Hashable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key
    ) -> SectionedResults<Key, Element> {
        sectioned(by: keyBlock, sortDescriptors: sortDescriptors)
    }

    /// The objects sorted by `sortDescriptors`, then grouped by `block`, as
    /// `sectioned(by:sortDescriptors:)`, with an invalid key path reported as an error
    /// instead of stopping the program (for key paths that come from input). No sort
    /// descriptors keep the results' order (Realm raises an exception).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when a key path is not one to one value.
    /// - Complexity: O(1); each evaluation sorts and computes every key: O(n log n).
    public func sectioned<Key: Hashable>(
        by block: @escaping (Element) -> Key, checking sortDescriptors: [SortDescriptor]
    ) throws -> SectionedResults<Key, Element> {
        let sorted = sortDescriptors.isEmpty ? self : try sorted(checking: sortDescriptors)
        return SectionedResults(index: SectionIndex(results: sorted, sectionKey: block, order: .firstAppearance))
    }

    /// The query path of the persisted property `keyPath` reads (through to-one links), to sort
    /// by; nil when it reads none, more than one, or a collection.
    func sortPath<Key>(for keyPath: KeyPath<Element, Key>) -> QueryPath? {
        guard let schema = database.schemas.schema(for: Element.self),
              let indices = KeyPathTracer.trace(keyPath, in: database) else { return nil }
        var steps: [QueryStep] = []
        var current: ObjectSchema? = schema
        for index in indices {
            guard let owner = current, owner.properties.indices.contains(index) else { return nil }
            let step = QueryStep.make(for: owner.properties[index], in: database.schemas)
            steps.append(step)
            current = step.targetSchema
        }
        let path = QueryPath(steps)
        guard !path.isMultiple, current == nil else { return nil }
        return path
    }
}
