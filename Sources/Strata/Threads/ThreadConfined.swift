/// A value confined to the thread or task of the database it was read from — a managed object,
/// a ``Results``, or a ``List``, ``MutableSet``, ``Map`` or ``LinkingObjects`` property — which a
/// ``ThreadSafeReference`` can carry to another thread or task, as Realm's `ThreadConfined`.
///
/// Only Strata's types conform (``ObjectBase``, so every `Object` and `EmbeddedObject`
/// subclass, and the collections above); a conformance of your own would not make a value
/// travel.
public protocol ThreadConfined {
    /// Whether this is a frozen view: immutable, and readable from any thread without a
    /// reference.
    var isFrozen: Bool { get }

    /// Not API: what a ``ThreadSafeReference`` to this value records.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` for an unmanaged value, `.objectInvalidated`
    ///   for a deleted or invalidated object (or one whose collection this is).
    func _strataHandover() throws -> _ThreadSafeHandover

    /// Not API: the value `handover` records, read through `database`; nil when it does not
    /// exist there.
    static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> Self?
}

extension ObjectBase: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover {
        guard let state = _strataState else { throw _ThreadSafeHandover.unmanaged("object (\(Self.className()))") }
        return try _ThreadSafeHandover(object: state)
    }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> Self? {
        handover.object(in: database) as? Self
    }
}

extension Results: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover { _ThreadSafeHandover(query: query) }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> Results? {
        guard let query = handover.query(in: database), query.schema.type is Element.Type else { return nil }
        return Results(query: query)
    }
}

/// The handover of a managed collection, or the unmanaged-value error.
private func collectionHandover(_ binding: CollectionBinding?, _ kind: String) throws -> _ThreadSafeHandover {
    guard let binding else { throw _ThreadSafeHandover.unmanaged(kind) }
    return try _ThreadSafeHandover(collection: binding)
}

extension List: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover { try collectionHandover(binding, "List") }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> List? {
        handover.collectionOwner(in: database).flatMap { _strataBind(owner: $0.owner, index: $0.index) }
    }
}

extension MutableSet: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover { try collectionHandover(binding, "MutableSet") }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> MutableSet? {
        handover.collectionOwner(in: database).flatMap { _strataBind(owner: $0.owner, index: $0.index) }
    }
}

extension Map: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover { try collectionHandover(binding, "Map") }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> Map? {
        handover.collectionOwner(in: database).flatMap { _strataBind(owner: $0.owner, index: $0.index) }
    }
}

extension LinkingObjects: ThreadConfined {
    public func _strataHandover() throws -> _ThreadSafeHandover { try collectionHandover(binding, "LinkingObjects") }

    public static func _strataResolve(_ handover: _ThreadSafeHandover, in database: Database) -> LinkingObjects? {
        handover.collectionOwner(in: database).flatMap { _strataBind(owner: $0.owner, index: $0.index) }
    }
}
