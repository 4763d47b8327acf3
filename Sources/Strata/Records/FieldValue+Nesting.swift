import StrataStorage

extension FieldValue {
    /// Throws when containers (lists, sets, maps, embedded objects) nest deeper in this value
    /// than a record may hold (`RecordCodec.maxNesting` levels), so that nothing a read would
    /// refuse is ever written.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue`.
    /// - Complexity: O(n) in the number of values inside containers; O(1) for a scalar.
    func checkNesting() throws {
        if nestsDeeper(than: RecordCodec.maxNesting) { throw Self.nestingError }
    }

    /// Throws when this value, as an element (or a map value) of a top-level collection field,
    /// makes the field nest deeper than a record may hold: what ``checkNesting()`` of the field
    /// would find, given the field's other elements pass.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue`.
    /// - Complexity: O(n) in the number of values inside this value's containers.
    func checkNestingAsElement() throws {
        if RecordCodec.maxNesting == 0 || nestsDeeper(than: RecordCodec.maxNesting - 1) { throw Self.nestingError }
    }

    private static var nestingError: StrataError {
        StrataError(.invalidValue, "the value nests lists, maps or embedded objects more than \(RecordCodec.maxNesting) levels deep")
    }

    /// Whether containers nest more than `levels` deep in this value.
    private func nestsDeeper(than levels: Int) -> Bool {
        switch self {
        case .list(let elements), .set(let elements):
            return levels == 0 || elements.contains { $0.nestsDeeper(than: levels - 1) }
        case .map(let entries):
            return levels == 0 || entries.contains { $0.value.nestsDeeper(than: levels - 1) }
        case .embedded(_, _, let fields):
            return levels == 0 || fields.contains { $0.value.nestsDeeper(than: levels - 1) }
        default:
            return false
        }
    }
}
