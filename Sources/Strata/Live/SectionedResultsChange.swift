import Foundation

/// What a sectioned results' change notification delivers, as Realm's `SectionedResultsChange`.
///
/// ```swift
/// let token = db.objects(Dog.self).sectioned(by: \.firstLetter).observe { change in
///     switch change {
///     case .initial(let sections): print(sections.allKeys)
///     case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
///         print(deletions, insertions, modifications, sectionsToInsert, sectionsToDelete)
///     case .error(let error): print(error)
///     }
/// }
/// ```
///
/// Indexes follow Realm's rule: `deletions`, `modifications` and `sectionsToDelete` index the
/// sections as they were at the previous delivery, `insertions` and `sectionsToInsert` the
/// sections now. As a table view's batch update: remove the deleted items, then the deleted
/// sections, insert the new sections (empty), then the inserted items; that gives the sections
/// now. A deleted section's items are not listed in `deletions`; an inserted section's items are
/// all in `insertions` (as Realm). Each array is in ascending order.
///
/// Thread safety: as the collection it carries (not `Sendable`): use it on the delivery queue.
public enum SectionedResultsChange<Collection> {
    /// The first delivery: the collection as it is when the observation starts.
    case initial(Collection)
    /// The collection changed since the previous delivery: the items removed (previous index
    /// paths), added (new index paths), and modified where they stayed (previous index paths);
    /// the sections added (new indexes) and removed (previous indexes).
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
    /// The observation could not start or go on; no delivery follows. (Realm has no such case:
    /// it raises an exception instead.)
    case error(any Error)
}

extension SectionedResultsChange {
    /// The same change carrying `transform(collection)` (an error carries none).
    func mapCollection(_ transform: (Collection) -> Collection) -> SectionedResultsChange {
        switch self {
        case .initial(let collection): return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            return .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications,
                           sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
        case .error(let error): return .error(error)
        }
    }
}
