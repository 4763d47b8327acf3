// Held references across a change: embedded objects have their own identity (as in Realm), so
// a reference to a spot taken before a list edit still reads that spot afterwards, and one to
// a spot the edit removed or replaced is invalidated; a deleted object's references (and its
// spots') are invalidated.

import Strata

extension OpsRun {
    /// Runs `edit` on `spots`, holding a reference to each spot first; `gone` is the index of
    /// the spot the edit removes or replaces. Afterwards that one is invalidated and every other
    /// still reads the label and level it had.
    func holdingSpots(_ spots: List<OpsSpot>, gone: Int?, _ edit: () -> Void) {
        let held = Array(spots)
        let values = held.map { ($0.label, $0.level) }
        edit()
        for (index, spot) in held.enumerated() {
            if index == gone {
                if !spot.isInvalidated { fail("a held reference to spots[\(index)], which the edit removed, is still valid") }
            } else if spot.isInvalidated {
                fail("a held reference to spots[\(index)] was invalidated by an edit of another element")
            } else if spot.label != values[index].0 || spot.level != values[index].1 {
                fail("a held reference to spots[\(index)] reads \((spot.label, spot.level)) after the edit, not \(values[index])")
            }
        }
    }

    /// Deletes `object`; afterwards it and its embedded objects, held from before, are invalidated.
    func deleteHolding(_ object: OpsObject) throws {
        let spots = Array(object.spots) + (object.spot.map { [$0] } ?? [])
        try db.delete(object)
        if !object.isInvalidated { fail("a deleted object is still valid") }
        if spots.contains(where: { !$0.isInvalidated }) { fail("an embedded object of a deleted object is still valid") }
    }
}
