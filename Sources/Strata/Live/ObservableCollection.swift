import StrataStorage

/// A collection property whose change notifications `CollectionObservationWorker` computes: a
/// ``List``, ``MutableSet``, ``Map`` or ``LinkingObjects``. It says what it holds as stored
/// (`ObservedElements`) and how two states of it make a delivery.
protocol ObservableCollection: ThreadConfined {
    /// What a delivery of this collection's observation is.
    associatedtype Change

    /// The class of the objects the collection holds (embedded ones too); nil for values.
    static func elementSchema(in database: Database) -> ObjectSchema?

    /// The elements now, read through the collection's database.
    func observedElements(_ observed: ObservedProperties?) -> ObservedElements

    /// The first delivery.
    static func initialChange(_ collection: Self) -> Change
    /// The delivery for a change from `old` to `new`, or nil when nothing observed changed.
    static func change(_ collection: Self, from old: ObservedElements, to new: ObservedElements) -> Change?
    /// The delivery that ends an observation that failed.
    static func failure(_ error: any Error) -> Change
    /// `change` carrying a frozen view of its collection at the delivery's version.
    static func frozen(_ change: Change) -> Change
    /// An empty, unmanaged collection: what is delivered once the owner was deleted.
    static func unmanagedEmpty() -> Self
    /// The last delivery, when the collection's owner was deleted: `empty` with every element
    /// of `previous` deleted (as Realm's, which reports the list emptied), also when there were
    /// none.
    static func ownerDeleted(_ empty: Self, previous: ObservedElements) -> Change
}

/// The `ObservableCollection` requirements every ordered collection (a list, a set, the
/// objects linking here) meets the same way: `CollectionChange`s of positions.
protocol ObservableOrderedCollection: ObservableCollection where Change == CollectionChange<Self> {}

extension ObservableOrderedCollection {
    static func initialChange(_ collection: Self) -> Change { .initial(collection) }

    static func change(_ collection: Self, from old: ObservedElements, to new: ObservedElements) -> Change? {
        var changes = CollectionChangeSet.between(old.keys, new.keys, modified: new.modified(since: old))
        if new.holdsValues { changes = changes.pairingReplacements() }
        guard !changes.isEmpty else { return nil }
        return .update(collection, deletions: changes.deletions, insertions: changes.insertions, modifications: changes.modifications)
    }

    static func failure(_ error: any Error) -> Change { .error(error) }
}

extension ObservableOrderedCollection {
    static func ownerDeleted(_ empty: Self, previous: ObservedElements) -> Change {
        .update(empty, deletions: Array(previous.keys.indices), insertions: [], modifications: [])
    }
}

/// The schema of `type` when it is a model class or an optional one (nil for a value type).
func observedSchema<T>(of type: T.Type, in database: Database) -> ObjectSchema? {
    let unwrapped = (type as? any OptionalWrapping.Type)?.wrappedType ?? type
    return (unwrapped as? ObjectBase.Type).flatMap { database.schemas.schema(for: $0) }
}

/// An `Optional`, whose wrapped type `observedSchema(of:in:)` looks at.
private protocol OptionalWrapping {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalWrapping {
    fileprivate static var wrappedType: Any.Type { Wrapped.self }
}

/// The elements of a managed list, set or map `binding` reads (none for an unmanaged one or a
/// deleted owner).
func storedElements(_ binding: CollectionBinding?, _ observed: ObservedProperties?) -> ObservedElements {
    guard let binding, let field = binding.owner.field(binding.index) else { return ObservedElements() }
    return .stored(field, property: binding.property, observed: observed, in: binding.database)
}

extension List: ObservableOrderedCollection {
    static func unmanagedEmpty() -> List { List() }
    static func frozen(_ change: Change) -> Change { change.mapCollection { $0.binding == nil ? $0 : $0.freeze() } }
    static func elementSchema(in database: Database) -> ObjectSchema? { observedSchema(of: Element.self, in: database) }
    func observedElements(_ observed: ObservedProperties?) -> ObservedElements { storedElements(binding, observed) }
}

extension MutableSet: ObservableOrderedCollection {
    static func unmanagedEmpty() -> MutableSet { MutableSet() }
    static func frozen(_ change: Change) -> Change { change.mapCollection { $0.binding == nil ? $0 : $0.freeze() } }
    static func elementSchema(in database: Database) -> ObjectSchema? { observedSchema(of: Element.self, in: database) }
    func observedElements(_ observed: ObservedProperties?) -> ObservedElements { storedElements(binding, observed) }
}

extension LinkingObjects: ObservableOrderedCollection {
    static func unmanagedEmpty() -> LinkingObjects { LinkingObjects(fromType: Element.self, property: "") }
    static func frozen(_ change: Change) -> Change { change.mapCollection { $0.binding == nil ? $0 : $0.freeze() } }
    static func elementSchema(in database: Database) -> ObjectSchema? { observedSchema(of: Element.self, in: database) }

    func observedElements(_ observed: ObservedProperties?) -> ObservedElements {
        guard let binding, let observed, let schema = Self.elementSchema(in: binding.database) else { return ObservedElements() }
        return .objects(compactMap { $0._strataState?.key }, schema: schema, observed: observed, in: binding.database)
    }
}

extension Map: ObservableCollection {
    static func elementSchema(in database: Database) -> ObjectSchema? { observedSchema(of: Value.self, in: database) }
    func observedElements(_ observed: ObservedProperties?) -> ObservedElements { storedElements(binding, observed) }

    static func initialChange(_ collection: Map) -> MapChange<Map> { .initial(collection) }

    static func change(_ collection: Map, from old: ObservedElements, to new: ObservedElements) -> MapChange<Map>? {
        let changes = MapChangeSet.between(old, new)
        guard !changes.isEmpty else { return nil }
        func keys(_ names: [String]) -> [Key] { names.map { Key(_strataMapKey: $0) } }
        return .update(collection, deletions: keys(changes.deletions), insertions: keys(changes.insertions),
                       modifications: keys(changes.modifications))
    }

    static func failure(_ error: any Error) -> MapChange<Map> { .error(error) }
    static func frozen(_ change: MapChange<Map>) -> MapChange<Map> { change.mapCollection { $0.binding == nil ? $0 : $0.freeze() } }

    static func unmanagedEmpty() -> Map { Map() }

    static func ownerDeleted(_ empty: Map, previous: ObservedElements) -> MapChange<Map> {
        .update(empty, deletions: previous.mapKeys.map { Key(_strataMapKey: $0) }, insertions: [], modifications: [])
    }
}
