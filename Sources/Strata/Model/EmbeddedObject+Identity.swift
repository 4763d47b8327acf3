// Identity of embedded objects, as Realm's `EmbeddedObject.isSameObject(as:)`: two accessors of
// one embedded object in one stored parent.

extension EmbeddedObject {
    /// Whether `object` is this embedded object: the same instance, or two managed, valid
    /// accessors of one embedded object (the same database files, the same top-level parent,
    /// the same property and identity at every level down) seen at the same version — both
    /// live, or both frozen at one commit (as ``Object/isSameObject(as:)``).
    ///
    /// Thread safety: as the objects.
    /// - Complexity: O(d) in the nesting depth, plus reading each object's parent.
    public func isSameObject(as object: EmbeddedObject?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let left = _strataState, let right = object._strataState,
              left.database.shared === right.database.shared, left.key == right.key,
              left.database.frozenSequence == right.database.frozenSequence,
              left.isValid, right.isValid
        else { return false }
        return left.path.sameSteps(as: right.path)
    }
}

extension ObjectState.Path {
    /// Whether two paths from one top-level object reach the same embedded object: the same
    /// property at each level, and the same identity (or, for objects stored without one, the
    /// same position).
    func sameSteps(as other: ObjectState.Path) -> Bool {
        steps.count == other.steps.count && zip(steps, other.steps).allSatisfy { left, right in
            left.property == right.property && left.id == right.id && (left.id != 0 || left.position == right.position)
        }
    }
}
