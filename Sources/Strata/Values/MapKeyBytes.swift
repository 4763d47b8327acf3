import StrataStorage

/// A map key as its UTF-8 bytes: equal, hashed and ordered by them, as stored strings are (Swift's
/// `String` equality would make canonically equivalent keys one).
struct MapKeyBytes: Hashable, Comparable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8) }
    func hash(into hasher: inout Hasher) { text.utf8.forEach { hasher.combine($0) } }

    /// Where `key` is among `entries` (in ascending key order): its position and true, or the
    /// position it would be inserted at and false. Adds the keys compared to `compared`.
    /// - Complexity: O(log n) comparisons.
    static func search(_ key: String, in entries: [FieldValue.MapEntry], compared: inout Int) -> (position: Int, found: Bool) {
        let target = MapKeyBytes(key)
        var low = 0
        var high = entries.count
        while low < high {
            let middle = low + (high - low) / 2
            compared += 1
            if MapKeyBytes(entries[middle].key) < target { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count else { return (low, false) }
        compared += 1
        return (low, MapKeyBytes(entries[low].key) == target)
    }

    /// Refuses keys MongoDB-style documents cannot hold: with a `.` or a leading `$`.
    static func check(_ key: String) throws {
        if key.contains(".") || key.hasPrefix("$") {
            throw StrataError(.invalidValue, "the map key '\(key)' contains '.' or starts with '$', which is not allowed")
        }
    }
}
