extension List {
    /// The changes of this list as an `AsyncSequence` (see ``ChangeSequence``): what
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` delivers, with frozen lists.
    /// - Complexity: O(1) here; each change reads the list and its objects' records.
    public var changes: ChangeSequence<CollectionChange<List<Element>>> { changes(keyPaths: nil) }

    /// The changes of this list, the objects' properties `keyPaths` names counting for
    /// modifications (see ``changes``).
    /// - Complexity: O(1) here; each change reads the list and its objects' records.
    public func changes(keyPaths: [String]?) -> ChangeSequence<CollectionChange<List<Element>>> {
        collectionChanges(database: binding?.database, keyPaths: keyPaths)
    }
}

extension MutableSet {
    /// The changes of this set as an `AsyncSequence` (see ``List/changes``).
    /// - Complexity: O(1) here; each change reads the set and its objects' records.
    public var changes: ChangeSequence<CollectionChange<MutableSet<Element>>> { changes(keyPaths: nil) }

    /// The changes of this set, the objects' properties `keyPaths` names counting for
    /// modifications (see ``List/changes``).
    /// - Complexity: O(1) here; each change reads the set and its objects' records.
    public func changes(keyPaths: [String]?) -> ChangeSequence<CollectionChange<MutableSet<Element>>> {
        collectionChanges(database: binding?.database, keyPaths: keyPaths)
    }
}

extension LinkingObjects {
    /// The changes of the objects linking here as an `AsyncSequence` (see ``List/changes``).
    /// - Complexity: O(1) here; each change reads the backlinks and the objects' records.
    public var changes: ChangeSequence<CollectionChange<LinkingObjects<Element>>> { changes(keyPaths: nil) }

    /// The changes of the objects linking here, their properties `keyPaths` names counting for
    /// modifications (see ``List/changes``).
    /// - Complexity: O(1) here; each change reads the backlinks and the objects' records.
    public func changes(keyPaths: [String]?) -> ChangeSequence<CollectionChange<LinkingObjects<Element>>> {
        collectionChanges(database: binding?.database, keyPaths: keyPaths)
    }
}

extension Map {
    /// The changes of this map as an `AsyncSequence` (see ``ChangeSequence``): what
    /// ``observe(keyPaths:on:_:)`` delivers, with frozen maps.
    /// - Complexity: O(1) here; each change reads the map and its objects' records.
    public var changes: ChangeSequence<MapChange<Map<Key, Value>>> { changes(keyPaths: nil) }

    /// The changes of this map, the objects' properties `keyPaths` names counting for
    /// modifications (see ``changes``).
    /// - Complexity: O(1) here; each change reads the map and its objects' records.
    public func changes(keyPaths: [String]?) -> ChangeSequence<MapChange<Map<Key, Value>>> {
        collectionChanges(database: binding?.database, keyPaths: keyPaths)
    }
}
