/// What a collection's change notification delivers, as Realm's `RealmCollectionChange`.
///
/// ```swift
/// let token = db.objects(Dog.self).where { $0.age > 2 }.observe { change in
///     switch change {
///     case .initial(let dogs): print(dogs.count)
///     case .update(_, let deletions, let insertions, let modifications):
///         print(deletions, insertions, modifications)
///     case .error(let error): print(error)
///     }
/// }
/// ```
///
/// Indexes follow Realm's rule: `deletions` and `modifications` index the collection as it was
/// at the previous delivery, `insertions` the collection now. Removing the deleted elements
/// from the previous collection, then inserting the new collection's elements at the
/// insertions, gives the collection now.
///
/// Thread safety: as the collection it carries (not `Sendable`): use it on the delivery queue.
public enum CollectionChange<Collection> {
    /// The first delivery: the collection as it is when the observation starts.
    case initial(Collection)
    /// The collection changed since the previous delivery: the objects removed (old indexes),
    /// added (new indexes) and, among those that stayed, whose observed properties changed (old
    /// indexes).
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The observation could not start or go on; no delivery follows.
    case error(any Error)
}

extension CollectionChange {
    /// The same change carrying `transform(collection)` (an error carries none).
    func mapCollection(_ transform: (Collection) -> Collection) -> CollectionChange {
        switch self {
        case .initial(let collection): return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}
