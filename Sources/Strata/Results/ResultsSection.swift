/// The objects of a ``SectionedResults`` that have one section key, in the results' order, as
/// Realm's `ResultsSection`.
///
/// ```swift
/// let sections = db.objects(Dog.self).sectioned(by: \.firstLetter)
/// if let r = sections.first(where: { $0.key == "R" }) { print(r.map(\.name)) }
/// ```
///
/// A section is a live view of its key: read after a commit it holds the objects that have the
/// key then; when none has it any more the section is empty and ``isInvalidated`` is true.
/// `Identifiable` by its key.
///
/// Thread safety: as the ``SectionedResults`` it came from (not `Sendable`).
public struct ResultsSection<Key: Hashable, Element: Object>: RandomAccessCollection, Identifiable, Equatable {
    let index: SectionIndex<Key, Element>

    /// The key every object of this section has.
    /// - Complexity: O(1).
    public let key: Key

    init(index: SectionIndex<Key, Element>, key: Key) {
        self.index = index
        self.key = key
    }

    /// The section's key (for `Identifiable`).
    /// - Complexity: O(1).
    public var id: Key { key }

    /// The first position: 0.
    /// - Complexity: O(1).
    public var startIndex: Int { 0 }
    /// One past the last position: the number of objects.
    /// - Complexity: as ``count``.
    public var endIndex: Int { index.positions(of: key).count }

    /// The number of objects in the section.
    /// - Complexity: O(n) the first time for a database version (every object's key is
    ///   computed), then O(1).
    public var count: Int { index.positions(of: key).count }

    /// The object at `position`.
    /// - Precondition: `position` is a valid position.
    /// - Complexity: as ``count``.
    public subscript(position: Int) -> Element {
        index.results[index.positions(of: key)[position]]
    }

    /// Walks the section's objects as they are when the walk starts: a write during the walk
    /// does not change which objects it yields.
    /// - Complexity: O(k) to start for k objects in the section, after the evaluation
    ///   ``count`` describes.
    public func makeIterator() -> IndexingIterator<[Element]> {
        index.positions(of: key).map { index.results[$0] }.makeIterator()
    }

    /// Whether no object has this section's key any more (Realm: the section is invalidated).
    /// - Complexity: as ``count``.
    public var isInvalidated: Bool { index.layout.indexByKey[key] == nil }

    /// Whether the section is frozen.
    /// - Complexity: O(1).
    public var isFrozen: Bool { index.results.isFrozen }

    /// The section with this key in the sectioned results frozen as of the latest commit.
    /// - Complexity: O(1); sections are computed when first read.
    public func freeze() -> ResultsSection {
        ResultsSection(index: index.moved(to: index.results.freeze()), key: key)
    }

    /// The section with this key in live sectioned results (this section when it is live).
    /// - Complexity: O(1).
    public func thaw() -> ResultsSection {
        guard isFrozen else { return self }
        return ResultsSection(index: index.moved(to: index.results.thaw()), key: key)
    }

    /// Whether `lhs` and `rhs` are the section of one key of one sectioned results.
    /// - Complexity: O(1).
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.index === rhs.index && lhs.key == rhs.key
    }
}
