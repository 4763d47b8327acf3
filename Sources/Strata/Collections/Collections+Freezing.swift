extension CollectionBinding {
    /// The same property of the owner read through a new frozen view of the latest commit (of
    /// its version, for a frozen binding). The result is `sending`: its owner and view are new, referred to
    /// by nothing else.
    /// - Precondition: the owner exists in that version (as `Object.freeze()`: Realm raises the
    ///   same for an invalidated object, and for one added by the open write).
    func frozen() -> sending CollectionBinding {
        guard let state = owner.path.state(in: database.freeze()) else {
            preconditionFailure("\(name): the object has been deleted or invalidated")
        }
        return CollectionBinding(owner: state, index: index)
    }

    /// The same property of the owner read through a new live view of the files, or nil when
    /// the owner no longer exists there.
    func thawed() -> CollectionBinding? {
        owner.path.state(in: database.thaw()).map { CollectionBinding(owner: $0, index: index) }
    }

    /// Whether the binding reads a frozen view.
    var isFrozen: Bool { database.isFrozen }
}

/// The message of freezing an unmanaged collection, which Realm also stops on.
func unmanagedFreeze(_ kind: String) -> Never {
    preconditionFailure("only a managed \(kind) can be frozen (an unmanaged one is a plain value of its owner)")
}

extension List {
    /// An immutable copy of this managed list as of the latest commit (a frozen list's: its
    /// version), safe to read from any thread; its objects are frozen too. Changing it stops the
    /// program, as changing a frozen object does (Realm raises the same). The result is
    /// `sending`: it may be handed to another task.
    /// - Precondition: the list is managed and its owner exists (as Realm's).
    /// - Complexity: O(1) to freeze; reading the owner's fields once.
    public func freeze() -> sending List {
        guard let binding else { unmanagedFreeze("List") }
        return List(binding: binding.frozen())
    }

    /// A live view of this frozen list, or nil when its owner was deleted since; itself when it
    /// is live or unmanaged.
    /// - Complexity: O(1); reading the owner's fields once.
    public func thaw() -> List? {
        guard let binding, binding.isFrozen else { return self }
        guard let thawed = binding.thawed() else { return nil }
        return List(binding: thawed)
    }

    /// The database view the list reads (a thawed list's is a new live `Database`: write
    /// through it), or nil for an unmanaged one.
    public var database: Database? { binding?.database }

    /// Whether this is a frozen list (see ``freeze()``); false for an unmanaged one.
    public var isFrozen: Bool { binding?.isFrozen ?? false }
}

extension MutableSet {
    /// An immutable copy of this managed set as of the latest commit (see ``List/freeze()``).
    /// - Precondition: the set is managed and its owner exists (as Realm's).
    /// - Complexity: O(1) to freeze; reading the owner's fields once.
    public func freeze() -> sending MutableSet {
        guard let binding else { unmanagedFreeze("MutableSet") }
        return MutableSet(binding: binding.frozen())
    }

    /// A live view of this frozen set, or nil when its owner was deleted since; itself when it
    /// is live or unmanaged.
    /// - Complexity: O(1); reading the owner's fields once.
    public func thaw() -> MutableSet? {
        guard let binding, binding.isFrozen else { return self }
        guard let thawed = binding.thawed() else { return nil }
        return MutableSet(binding: thawed)
    }

    /// The database view the set reads (a thawed set's is a new live `Database`: write
    /// through it), or nil for an unmanaged one.
    public var database: Database? { binding?.database }

    /// Whether this is a frozen set; false for an unmanaged one.
    public var isFrozen: Bool { binding?.isFrozen ?? false }
}

extension Map {
    /// An immutable copy of this managed map as of the latest commit (see ``List/freeze()``).
    /// - Precondition: the map is managed and its owner exists (as Realm's).
    /// - Complexity: O(1) to freeze; reading the owner's fields once.
    public func freeze() -> sending Map {
        guard let binding else { unmanagedFreeze("Map") }
        return Map(binding: binding.frozen())
    }

    /// A live view of this frozen map, or nil when its owner was deleted since; itself when it
    /// is live or unmanaged.
    /// - Complexity: O(1); reading the owner's fields once.
    public func thaw() -> Map? {
        guard let binding, binding.isFrozen else { return self }
        guard let thawed = binding.thawed() else { return nil }
        return Map(binding: thawed)
    }

    /// The database view the map reads (a thawed map's is a new live `Database`: write
    /// through it), or nil for an unmanaged one.
    public var database: Database? { binding?.database }

    /// Whether this is a frozen map; false for an unmanaged one.
    public var isFrozen: Bool { binding?.isFrozen ?? false }
}

extension LinkingObjects {
    /// The objects that link here as of the latest commit, frozen (see ``List/freeze()``).
    /// - Precondition: the collection is managed and its object exists (as Realm's).
    /// - Complexity: O(1) to freeze; reading the object's fields once.
    public func freeze() -> sending LinkingObjects {
        guard let binding else { unmanagedFreeze("LinkingObjects") }
        return LinkingObjects(propertyName: propertyName, binding: binding.frozen())
    }

    /// A live view of these frozen linking objects, or nil when their object was deleted since;
    /// itself when live or unmanaged.
    /// - Complexity: O(1); reading the object's fields once.
    public func thaw() -> LinkingObjects? {
        guard let binding, binding.isFrozen else { return self }
        return binding.thawed().map { LinkingObjects(propertyName: propertyName, binding: $0) }
    }

    /// The database view the collection reads, or nil for an unmanaged one.
    public var database: Database? { binding?.database }

    /// Whether these linking objects are frozen; false for an unmanaged collection.
    public var isFrozen: Bool { binding?.isFrozen ?? false }
}
