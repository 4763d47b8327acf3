import Foundation

/// How sectioned results changed between two deliveries of their change notifications, in
/// Realm's terms (see ``SectionedResultsChange``): a pure function of the sections before and
/// after — each a key and its items' keys in order — and of the items whose observed values
/// changed.
///
/// Sections are matched by key. A key that appears is a section insertion, one that disappears
/// a deletion; the sections in both that keep their relative order are a longest such run, and
/// any other (a section that moved, possible when sections follow the sort rather than their
/// keys) is deleted and inserted. Within a kept section the items are diffed as
/// `CollectionChangeSet` does; an item that moved to another section is a deletion from the old
/// one and an insertion into the new. A modified item is a modification only when its position
/// in its section is the same before and after, otherwise a deletion and an insertion (Realm's
/// rule). A deleted section's items are not listed; an inserted section's are.
///
/// A value; `Sendable`.
struct SectionedChangeSet: Equatable, Sendable {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    /// Whether nothing changed.
    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// The changes that turn the sections `old` into `new` (keys unique among sections, and an
    /// item in one section at most), with the items `modified` reported as modifications where
    /// they stay.
    /// - Complexity: O((m + n) log n) for m old and n new items and sections.
    static func between<SectionKey: Hashable, Item: Hashable>(
        _ old: [(key: SectionKey, items: [Item])], _ new: [(key: SectionKey, items: [Item])], modified: Set<Item>
    ) -> SectionedChangeSet {
        let sections = CollectionChangeSet.between(old.map(\.key), new.map(\.key), modified: [])
        var changes = SectionedChangeSet()
        changes.sectionsToDelete = IndexSet(sections.deletions)
        changes.sectionsToInsert = IndexSet(sections.insertions)
        // The kept sections, in order on both sides: the run the section diff kept.
        let keptOld = old.indices.filter { !changes.sectionsToDelete.contains($0) }
        let keptNew = new.indices.filter { !changes.sectionsToInsert.contains($0) }
        for (oldSection, newSection) in zip(keptOld, keptNew) {
            assert(old[oldSection].key == new[newSection].key, "the section diff keeps sections of one key")
            changes.addItemChanges(old[oldSection].items, new[newSection].items, oldSection, newSection, modified)
        }
        for section in changes.sectionsToInsert where section < new.count {
            changes.insertions += new[section].items.indices.map { IndexPath(indexes: [section, $0]) }
        }
        changes.deletions.sort()
        changes.insertions.sort()
        changes.modifications.sort()
        return changes
    }

    /// Adds the changes of the items of one kept section.
    private mutating func addItemChanges<Item: Hashable>(
        _ old: [Item], _ new: [Item], _ oldSection: Int, _ newSection: Int, _ modified: Set<Item>
    ) {
        let items = CollectionChangeSet.between(old, new, modified: modified)
        deletions += items.deletions.map { IndexPath(indexes: [oldSection, $0]) }
        insertions += items.insertions.map { IndexPath(indexes: [newSection, $0]) }
        guard !items.modifications.isEmpty else { return }
        var newPosition: [Item: Int] = [:]
        for (position, item) in new.enumerated() { newPosition[item] = position }
        for position in items.modifications {
            guard let now = newPosition[old[position]], now != position else {
                modifications.append(IndexPath(indexes: [oldSection, position]))
                continue
            }
            deletions.append(IndexPath(indexes: [oldSection, position]))
            insertions.append(IndexPath(indexes: [newSection, now]))
        }
    }

    /// The changes that concern one section key, as Realm reports them to an observer of a
    /// section: items and section changes at its previous index `old` and its index now `new`
    /// (nil: the key had, or has, no section); index paths keep the sectioned results' indexes.
    func restricted(toOldSection old: Int?, newSection new: Int?) -> SectionedChangeSet {
        var restricted = SectionedChangeSet()
        if let old {
            restricted.deletions = deletions.filter { $0.first == old }
            restricted.modifications = modifications.filter { $0.first == old }
            if sectionsToDelete.contains(old) { restricted.sectionsToDelete = [old] }
        }
        if let new {
            restricted.insertions = insertions.filter { $0.first == new }
            if sectionsToInsert.contains(new) { restricted.sectionsToInsert = [new] }
        }
        return restricted
    }
}
