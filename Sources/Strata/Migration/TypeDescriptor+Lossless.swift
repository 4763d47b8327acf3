// Which type changes keep every value: the rule `Migration.renameProperty` applies.

extension TypeDescriptor {
    /// Whether every value of this type has an equal value of type `new`, so that a property
    /// may change from one to the other without losing anything: the same type; a required
    /// property made optional (not the reverse: a null would have no value); an integer made
    /// as wide or wider (`Int8` → `Int16` → `Int32` → `Int`/`Int64`); a list, set or map whose
    /// elements change so; a link to the same class. Any other change (a narrower integer, a
    /// `Float` to `Double`, a `String` to anything) is not lossless.
    /// - Complexity: O(d) for the d levels of nesting (a collection of one element type: 2).
    func convertsLosslessly(to new: TypeDescriptor) -> Bool {
        guard !isOptional || new.isOptional || new.type == .any else { return false }
        switch (type, new.type) {
        case let (.list(from), .list(to)), let (.set(from), .set(to)), let (.map(from), .map(to)):
            return from.convertsLosslessly(to: to)
        case let (.object(from), .object(to)):
            return from == to
        default:
            if type == new.type { return true }
            guard let from = type.integerWidth, let to = new.type.integerWidth else { return false }
            return from <= to
        }
    }
}

extension PropertyType {
    /// The width in bits of an integer type; nil for any other.
    var integerWidth: Int? {
        switch self {
        case .int8: return 8
        case .int16: return 16
        case .int32: return 32
        case .int, .int64: return 64
        default: return nil
        }
    }
}
