// The OpsFuzzer's plain in-memory model: what a Strata database of OpsItems and OpsNotes must
// hold, with Realm's semantics, kept in Swift dictionaries and arrays of pool indexes
// (OpsPools). Values are compared by pool index, so strings by their bytes and doubles by their
// bit patterns.
//
// Realm's rules the model implements: deleting an item sets every to-one link to it (in objects
// and in their embedded objects) to nil and removes every list entry of it; an object's
// embedded objects go with it; `add(_:update:)` with `.modified` or `.all` leaves the stored
// object with exactly the new object's values (its backlinks stay); `.error` on an existing key
// fails the write, and so does a value nested more than 100 levels deep; a write that throws
// changes nothing.

/// An embedded OpsSpot's values.
public struct OpsSpotValue: Equatable, Sendable {
    var label = 0
    var level = 0
    var item: Int?
}

/// An OpsItem's or OpsNote's values (pool indexes; links are item ids).
public struct OpsValue: Equatable, Sendable {
    var name = 0
    var count = 0
    var weight = 6
    var extra = 0
    var link: Int?
    var links: [Int] = []
    var spot: OpsSpotValue?
    var spots: [OpsSpotValue] = []
    /// String pool index of the key → int pool index of the value.
    var scores: [Int: Int] = [:]
}

/// An object of the model: an item (by id) or a note (by serial).
public enum OpsTarget: Hashable, Sendable, CustomStringConvertible {
    case item(Int)
    case note(Int)

    public var description: String {
        switch self {
        case .item(let id): "item \(id)"
        case .note(let serial): "note #\(serial)"
        }
    }
}

/// What the database must hold.
public struct OpsModel: Equatable, Sendable {
    var items: [Int: OpsValue] = [:]
    var notes: [Int: OpsValue] = [:]
    /// The serial the next note gets.
    var nextSerial = 0

    subscript(target: OpsTarget) -> OpsValue? {
        get {
            switch target {
            case .item(let id): items[id]
            case .note(let serial): notes[serial]
            }
        }
        set {
            switch target {
            case .item(let id): items[id] = newValue
            case .note(let serial): notes[serial] = newValue
            }
        }
    }

    /// Every object, items (by id) first, then notes (by serial).
    var targets: [OpsTarget] {
        items.keys.sorted().map(OpsTarget.item) + notes.keys.sorted().map(OpsTarget.note)
    }

    /// Deletes `target`; for an item, every link to it goes (Realm's rule).
    mutating func delete(_ target: OpsTarget) {
        self[target] = nil
        guard case .item(let id) = target else { return }
        for other in targets {
            self[other]!.unlink(id)
        }
    }

    /// The items whose `link` is `id`, and how many entries of `id` the `links` of each item hold.
    func linkers(of id: Int) -> (items: Set<Int>, notes: Set<Int>, listers: [Int: Int]) {
        var listers: [Int: Int] = [:]
        for (other, value) in items {
            let entries = value.links.filter { $0 == id }.count
            if entries > 0 { listers[other] = entries }
        }
        return (Set(items.filter { $0.value.link == id }.keys),
                Set(notes.filter { $0.value.link == id }.keys), listers)
    }
}

extension OpsValue {
    /// Removes every link to item `id`.
    mutating func unlink(_ id: Int) {
        if link == id { link = nil }
        links.removeAll { $0 == id }
        if spot?.item == id { spot!.item = nil }
        for index in spots.indices where spots[index].item == id { spots[index].item = nil }
    }
}
