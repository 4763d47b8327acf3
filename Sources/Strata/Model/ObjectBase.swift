/// The root of every model class: ``Object`` and ``EmbeddedObject`` derive from it.
///
/// Thread safety: an unmanaged or live object is used by one thread at a time; a frozen object
/// (``Object/freeze()``) is immutable and may be read from any thread. Model classes are not
/// `Sendable` (subclasses would have to restate it); hand a frozen `Database` or `Results` to
/// another thread, or the object's primary key.
open class ObjectBase {
    /// Not API: the object's link to its database once it is managed. (Not checked for
    /// exclusive access at run time: it is set once, when the object becomes managed, and read
    /// on every property access.)
    @exclusivity(unchecked) public internal(set) final var _strataState: _ObjectState?
    /// Set on an object decoded from a bare primary key: adding it links to the stored object
    /// with that key (or stores this one when there is none) instead of overwriting it.
    var isPrimaryKeyReference = false
    /// What `init(value:)` (or `Database.create`) was given, for an object made so; nil
    /// otherwise. (One reference, so that other objects carry one word for it.)
    var valueInput: ValueInput?

    /// Makes an unmanaged object with every property at its default.
    public required init() {}

    /// Whether a database manages the object.
    public var isManaged: Bool { _strataState != nil }

    /// Whether the object was deleted (an embedded object: removed from its parent, replaced,
    /// or deleted with it), or added in a write that was cancelled.
    public var isInvalidated: Bool {
        guard let state = _strataState else { return false }
        return !state.isValid
    }

    /// Whether the object is a frozen (immutable) view of one version.
    public var isFrozen: Bool { _strataState?.database.isFrozen ?? false }

    /// The database that manages the object, if any.
    public var database: Database? { _strataState?.database }

    /// The class name the schema uses (the Swift class name without its module), as Realm's
    /// `className()`.
    ///
    /// Thread safety: any thread.
    /// - Complexity: O(n) in the length of the name.
    public class func className() -> String { String(describing: self) }
}

/// What an object made from an untyped value keeps of it (see `ObjectBase+Value.swift`).
final class ValueInput {
    /// What was wrong with the value (`init(value:)` cannot throw): adding the object throws it.
    let error: StrataError?
    /// The indices of the properties the value gave: what `Database.create` writes over a
    /// stored object with the same primary key.
    let givenProperties: [Int]

    init(error: StrataError?, givenProperties: [Int]) {
        self.error = error
        self.givenProperties = givenProperties
    }
}

extension ObjectBase {
    /// What was wrong with the value `init(value:)` was given, if anything.
    var valueError: StrataError? { valueInput?.error }
}
