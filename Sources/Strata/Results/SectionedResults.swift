import Foundation

/// The objects of a ``Results`` grouped into sections by a key, as Realm's `SectionedResults`:
/// a collection of ``ResultsSection``s, each a collection of the objects with one key.
///
/// ```swift
/// extension Dog { var firstLetter: String { String(name.prefix(1)) } }
///
/// let sections = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
/// for section in sections {
///     print(section.key, section.count, section.first?.name ?? "-")
/// }
/// let rex = sections[IndexPath(item: 0, section: 1)]
/// ```
///
/// Made by ``Results/sectioned(by:ascending:)`` and its siblings. Every object of the results
/// is in exactly one section; the objects of a section keep the results' order. Like
/// `Results`, a live `SectionedResults` re-evaluates when read after a commit (once per database
/// version) and a frozen one keeps its version. Realm's `Equatable`: two values are equal when
/// one is a copy of the other.
///
/// Thread safety: confined like the results it came from, and not `Sendable` even when frozen
/// (the key function is the caller's closure): use it on the thread, task or queue that made it.
public struct SectionedResults<Key: Hashable, Element: Object>: RandomAccessCollection, Equatable {
    let index: SectionIndex<Key, Element>

    init(index: SectionIndex<Key, Element>) { self.index = index }

    /// The first position: 0.
    /// - Complexity: O(1).
    public var startIndex: Int { 0 }
    /// One past the last position: the number of sections.
    /// - Complexity: as ``count``.
    public var endIndex: Int { index.layout.sections.count }

    /// The number of sections.
    /// - Complexity: O(n) the first time for a database version (every object's key is
    ///   computed), then O(1).
    public var count: Int { index.layout.sections.count }

    /// The section at `position`: a live view of the section with its key.
    /// - Precondition: `position` is a valid position.
    /// - Complexity: as ``count``.
    public subscript(position: Int) -> ResultsSection<Key, Element> {
        ResultsSection(index: index, key: index.layout.sections[position].key)
    }

    /// The object at `indexPath`: item `indexPath.item` of section `indexPath.section`.
    /// - Precondition: both are valid positions.
    /// - Complexity: as ``count``.
    public subscript(indexPath: IndexPath) -> Element {
        let layout = index.layout
        let positions = layout.sections[indexPath.section].positions
        return index.results[positions[indexPath.item]]
    }

    /// The keys of the sections, in order.
    /// - Complexity: O(s) for s sections, after the evaluation ``count`` describes.
    public var allKeys: [Key] { index.layout.sections.map(\.key) }

    /// Walks the sections as they are when the walk starts (each a live view of its key's
    /// section).
    /// - Complexity: as ``allKeys`` to start.
    public func makeIterator() -> IndexingIterator<[ResultsSection<Key, Element>]> {
        index.layout.sections.map { ResultsSection(index: index, key: $0.key) }.makeIterator()
    }

    /// Whether these sectioned results are frozen.
    /// - Complexity: O(1).
    public var isFrozen: Bool { index.results.isFrozen }

    /// Always false: Strata's results are never invalidated (Realm's are when their Realm is).
    /// - Complexity: O(1).
    public var isInvalidated: Bool { false }

    /// These sectioned results as of the latest commit (frozen ones: their own version), with
    /// the same key function and order; they never change.
    /// - Complexity: O(1); sections are computed when first read.
    public func freeze() -> SectionedResults {
        SectionedResults(index: index.moved(to: index.results.freeze()))
    }

    /// Live sectioned results with the same key function and order (these when they are live).
    /// - Complexity: O(1).
    public func thaw() -> SectionedResults {
        guard isFrozen else { return self }
        return SectionedResults(index: index.moved(to: index.results.thaw()))
    }

    /// Whether `lhs` and `rhs` are copies of one sectioned results (Realm's identity equality).
    /// - Complexity: O(1).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.index === rhs.index }
}
