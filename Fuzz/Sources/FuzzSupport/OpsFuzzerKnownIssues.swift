// The pool values an OpsFuzzer run uses, for KnownIssues.opsTripsKnownIssue: the open issues it
// trips all need both values of a canonically equal pair (OpsPools' twins) in one run.

extension OpsValue {
    var strings: [Int] { [name] + (spot.map { [$0.label] } ?? []) + spots.map(\.label) + scores.keys }
}

extension OpsAction {
    /// The string and double pool indexes the action writes.
    var values: (strings: [Int], doubles: [Int]) {
        switch self {
        case .addItem(_, let value, _), .addNote(_, let value): return (value.strings, [value.weight])
        case .setName(_, let index): return ([index], [])
        case .setWeight(_, let index): return ([], [index])
        case .setSpot(_, let spot?), .spotsInsert(_, _, let spot), .spotsReplace(_, _, let spot): return ([spot.label], [])
        case .editSpot(_, _, .label(let index)): return ([index], [])
        case .setScore(_, let key, _): return ([key], [])
        default: return ([], [])
        }
    }
}

extension [OpsStep] {
    /// Whether the run uses both strings, or both doubles, of a twin pair.
    var usesTwins: Bool {
        var strings = Set<Int>()
        var doubles = Set<Int>()
        for step in self {
            switch step {
            case .write(let actions, _):
                for action in actions {
                    let values = action.values
                    strings.formUnion(values.strings)
                    doubles.formUnion(values.doubles)
                }
            case .query(let index): strings.insert(index)
            default: break
            }
        }
        return OpsPools.twinStrings.isSubset(of: strings) || OpsPools.twinDoubles.isSubset(of: doubles)
    }
}
