// The map keys an OpsFuzzer run writes, for KnownIssues.opsTripsKnownIssue: MAP-KEY-CANONICAL-
// EQUALITY needs both strings of OpsPools' canonically equal pair as keys in one run.

extension OpsAction {
    /// The string pool indexes the action writes as map keys.
    var mapKeys: [Int] {
        switch self {
        case .addItem(_, let value, _), .addNote(_, let value): return Array(value.scores.keys)
        case .setScore(_, let key, _): return [key]
        default: return []
        }
    }
}

extension [OpsStep] {
    /// Whether the run writes both strings of the twin pair as map keys.
    var writesTwinMapKeys: Bool {
        var keys = Set<Int>()
        for step in self {
            switch step {
            case .write(let actions, _), .crashDuringWrite(let actions, _, _, _):
                for action in actions { keys.formUnion(action.mapKeys) }
            default: break
            }
        }
        return OpsPools.twinStrings.isSubset(of: keys)
    }
}
