// Identity of model objects, as Realm's: two accessors are the same object when they view the
// same stored object of the same database files, whatever Swift instances they are.

extension Object: Hashable {
    /// Whether two objects are the same object: see ``isSameObject(as:)``. So `firstIndex(of:)`,
    /// `contains(_:)`, `Set` and dictionary keys treat two accessors of one stored object as one,
    /// as Realm code expects.
    ///
    /// Thread safety: as the objects.
    /// - Complexity: O(1).
    public static func == (lhs: Object, rhs: Object) -> Bool {
        lhs.isSameObject(as: rhs)
    }

    /// Hashes the stored object's key when managed, the instance when unmanaged. An unmanaged
    /// object's hash changes when it is added (as in Realm): do not keep one in a `Set` or as a
    /// dictionary key across the `add` that makes it managed.
    ///
    /// Thread safety: as the object.
    /// - Complexity: O(k) in the length of the object's key.
    public func hash(into hasher: inout Hasher) {
        guard let state = _strataState else { return hasher.combine(ObjectIdentifier(self)) }
        hasher.combine(state.key)
    }

    /// Whether `object` is this object, as Realm's `isSameObject(as:)`: the same instance; or two
    /// managed, valid accessors of one stored object (same database files, same key) that see
    /// it at the same version — both live, or both frozen at the same commit. An unmanaged
    /// object is the same only as itself; a frozen and a live accessor are never the same, as
    /// in Realm, whose frozen objects belong to another `Realm` than live ones.
    ///
    /// Thread safety: as the objects.
    /// - Complexity: O(k) in the length of the object's key.
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let left = _strataState, let right = object._strataState else { return false }
        let (leftDatabase, rightDatabase) = (left.database, right.database)
        return leftDatabase.shared === rightDatabase.shared && left.key == right.key
            && leftDatabase.frozenSequence == rightDatabase.frozenSequence && left.isValid && right.isValid
    }
}

extension Database {
    /// The commit a frozen database sees; nil for a live one.
    var frozenSequence: UInt64? { isFrozen ? snapshot.sequence : nil }
}
