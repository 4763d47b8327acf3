/// How a collection's objects changed between two deliveries of its change notifications, in
/// Realm's terms: `deletions` index the previous collection, `insertions` the new one, and
/// `modifications` the previous one (objects in both whose observed properties changed).
/// Removing the deletions from the previous collection, then inserting the new collection's
/// elements at the insertions, gives the new collection.
///
/// An object that moved (a sorted collection whose sort key changed) is a deletion and an
/// insertion; the objects that stay are a longest run kept in the same relative order, so a
/// change of a collection that holds each object once (any `Results`) reports as few moves as
/// the orders allow. In a list that holds an object more than once, each new occurrence is
/// matched with its earliest unmatched old one, which may report more moves than needed.
///
/// A value; `Sendable`.
struct CollectionChangeSet: Equatable, Sendable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    /// Whether nothing changed.
    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The changes that turn `old` into `new` (each an object's key, in collection order, a key
    /// possibly more than once, as in a list), with the objects `modified` reported as
    /// modifications where they stay.
    /// - Complexity: O(m + n) to set aside the elements both start and end with, plus
    ///   O((m' + n') log n') for the m' old and n' new elements between, plus O(n·k) for k
    ///   modified objects (O(n) when k is large).
    static func between<Key: Hashable>(_ old: [Key], _ new: [Key], modified: Set<Key>) -> CollectionChangeSet {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        var changes = middle(old[prefix..<(old.count - suffix)], new[prefix..<(new.count - suffix)])
        var keptOld = [Bool](repeating: true, count: old.count)
        for position in changes.deletions { keptOld[position] = false }
        changes.modifications = positions(of: modified, in: old, where: keptOld)
        return changes
    }

    /// The deletions and insertions (positions in the whole collections) that turn the old
    /// elements `old` into the new ones `new` (slices of them at the same start).
    private static func middle<Key: Hashable>(_ old: ArraySlice<Key>, _ new: ArraySlice<Key>) -> CollectionChangeSet {
        // Each new element is matched with the first unmatched old element of the same key.
        var unmatched: [Key: [Int]] = [:]
        for (position, key) in zip(old.indices, old).reversed() { unmatched[key, default: []].append(position) }
        let matches = new.map { key in unmatched[key]?.popLast() }
        let kept = longestIncreasingRun(of: matches)
        var keptOld: Set<Int> = []
        var changes = CollectionChangeSet()
        for (offset, match) in matches.enumerated() {
            if kept[offset], let match { keptOld.insert(match) } else { changes.insertions.append(new.startIndex + offset) }
        }
        changes.deletions = old.indices.filter { !keptOld.contains($0) }
        return changes
    }

    /// The positions of `old` that `keep` marks (nil: every position) and whose element is one
    /// of `modified`.
    static func positions<Key: Hashable>(of modified: Set<Key>, in old: [Key], where keep: [Bool]? = nil) -> [Int] {
        guard !modified.isEmpty else { return [] }
        if modified.count <= 8 {
            // A few modified objects: comparing is cheaper than hashing every element.
            let few = Array(modified)
            return old.indices.filter { keep?[$0] ?? true && few.contains(old[$0]) }
        }
        return old.indices.filter { keep?[$0] ?? true && modified.contains(old[$0]) }
    }

    /// These changes with each deletion and insertion that sit at the same place between the
    /// elements that stayed paired up as a modification of the deleted element's position —
    /// how a collection of values reports a value replaced in place (`list[2] = 7`), which has
    /// no identity to follow. Pairs are made in order within each run of changed positions;
    /// the rest stay deletions or insertions.
    /// - Complexity: O(d + i) for d deletions and i insertions.
    func pairingReplacements() -> CollectionChangeSet {
        var paired = CollectionChangeSet(modifications: modifications)
        var (deletion, insertion) = (0, 0)
        // A position's gap is how many kept elements come before it.
        while deletion < deletions.count, insertion < insertions.count {
            let deletedGap = deletions[deletion] - deletion
            let insertedGap = insertions[insertion] - insertion
            if deletedGap == insertedGap {
                paired.modifications.append(deletions[deletion])
                deletion += 1
                insertion += 1
            } else if deletedGap < insertedGap {
                paired.deletions.append(deletions[deletion])
                deletion += 1
            } else {
                paired.insertions.append(insertions[insertion])
                insertion += 1
            }
        }
        paired.deletions += deletions[deletion...]
        paired.insertions += insertions[insertion...]
        paired.modifications.sort()
        return paired
    }

    /// Which of `values` (nil: no value) form a longest strictly increasing run of the
    /// non-nil ones, in order (patience sorting with back links).
    private static func longestIncreasingRun(of values: [Int?]) -> [Bool] {
        var tails: [Int] = []            // by run length - 1: the position ending the best run
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            guard let value else { continue }
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]]! < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var kept = [Bool](repeating: false, count: values.count)
        var position = tails.last ?? -1
        while position >= 0 {
            kept[position] = true
            position = previous[position]
        }
        return kept
    }
}
