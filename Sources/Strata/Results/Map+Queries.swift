// Queries on a map's values, as Realm's `Map`: a managed map whose values are objects
// (`Map<String, Dog?>`) answers `where { }`, `filter`, `sorted`, `distinct` and the aggregates
// over its objects (see `ObjectCollection+Queries.swift`), with live `Results` of the object
// class. The results start from the map's values in ascending key order (an object held under
// two keys twice); nil values, and values whose object was deleted (they read as nil), are not
// objects and are left out, as in Realm, whose `Results<Dog?>` from a map's query holds no nil.

/// An optional object type, `Dog?`: the value type of a map of objects. Not API (it names the
/// class a map's queries return).
public protocol _OptionalObject {
    associatedtype _Wrapped: Object
}

extension Optional: _OptionalObject where Wrapped: Object {
    /// The object class.
    public typealias _Wrapped = Wrapped
}

extension Map: _ObjectCollection where Value: _OptionalObject {
    /// The map's objects (its non-nil values, in ascending key order) as live results.
    public var _results: Results<Value._Wrapped> { Results(collection: binding) }
}
