/// A collection whose elements are found by key — a ``Map`` — as Realm's
/// `RealmKeyedCollection`: what ``MapChange`` names its keys by.
public protocol KeyedCollection {
    /// The type of the collection's keys.
    associatedtype Key
}

extension Map: KeyedCollection {}

/// What a ``Map``'s change notification delivers, as Realm's `RealmMapChange`.
///
/// ```swift
/// let token = ann.nicknames.observe { (change: MapChange<Map<String, String>>) in
///     if case .update(_, let deletions, let insertions, let modifications) = change {
///         print(deletions, insertions, modifications)
///     }
/// }
/// ```
///
/// The keys are those removed since the previous delivery, added, and kept with another value
/// (for a map of objects: another object, or the same object with an observed property
/// changed).
///
/// Thread safety: as the map it carries (not `Sendable`): use it on the delivery queue.
public enum MapChange<Collection: KeyedCollection> {
    /// The first delivery: the map as it is when the observation starts.
    case initial(Collection)
    /// The map changed since the previous delivery: the keys removed, added and changed.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// The observation could not start or go on; no delivery follows.
    case error(any Error)
}

extension MapChange {
    /// The same change carrying `transform(collection)` (an error carries none).
    func mapCollection(_ transform: (Collection) -> Collection) -> MapChange {
        switch self {
        case .initial(let collection): return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

/// How a map's entries changed between two deliveries, by key (keys compared as stored: by
/// their UTF-8 bytes), each list in ascending key order.
struct MapChangeSet: Equatable {
    var deletions: [String] = []
    var insertions: [String] = []
    var modifications: [String] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The changes from the map `old` to `new` (their `mapKeys` aligned with their `keys`).
    /// - Complexity: O(m + n) for m old and n new entries.
    static func between(_ old: ObservedElements, _ new: ObservedElements) -> MapChangeSet {
        var before: [MapKeyBytes: ObservedElements.Key] = [:]
        for (name, element) in zip(old.mapKeys, old.keys) { before[MapKeyBytes(name)] = element }
        let modified = new.modified(since: old)
        var changes = MapChangeSet()
        var kept: Set<MapKeyBytes> = []
        for (name, element) in zip(new.mapKeys, new.keys) {
            let key = MapKeyBytes(name)
            guard let previous = before[key] else {
                changes.insertions.append(name)
                continue
            }
            kept.insert(key)
            if previous != element || modified.contains(element) { changes.modifications.append(name) }
        }
        changes.deletions = old.mapKeys.filter { !kept.contains(MapKeyBytes($0)) }
        return changes
    }
}
