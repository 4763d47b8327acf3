// OpsFuzzer seeds: short programs in the input format of FuzzSupport/OpsFuzzerDecoder.swift,
// spelled with the helpers below. A link byte `5 * k + 1` picks the k-th existing item id (in
// ascending order, counting the item being added), 0 is nil.

/// An OpsFuzzer value: name, count, weight, extra, link, links, spot, spots, scores.
func opsValue(
    name: UInt8 = 2, count: UInt8 = 3, weight: UInt8 = 0, extra: UInt8 = 0, link: UInt8 = 0,
    links: [UInt8] = [], spot: [UInt8]? = nil, spots: [[UInt8]] = [], scores: [(UInt8, UInt8)] = []
) -> [UInt8] {
    precondition(links.count < 4 && spots.count < 3 && scores.count < 3)
    var bytes = [name, count, weight, extra, link, UInt8(links.count)] + links
    bytes += spot.map { [1] + $0 } ?? [0]
    bytes += [UInt8(spots.count)] + spots.joined()
    bytes += [UInt8(scores.count)] + scores.flatMap { [$0.0, $0.1] }
    return bytes
}

/// A spot: label, level, item link byte.
func opsSpot(label: UInt8 = 1, level: UInt8 = 3, item: UInt8 = 0) -> [UInt8] { [label, level, item] }

/// The k-th existing item id as a link byte.
func opsLink(_ k: UInt8) -> UInt8 { 5 * k + 1 }

/// Operations (opcodes of OpsFuzzerDecoder.swift).
enum Ops {
    static func addItem(_ id: UInt8, policy: UInt8 = 0, _ value: [UInt8] = opsValue()) -> [UInt8] { [0, id, policy] + value }
    static func addNote(_ value: [UInt8] = opsValue()) -> [UInt8] { [2] + value }
    /// property: 0 name, 1 count, 2 weight, 3 extra.
    static func set(_ target: UInt8, property: UInt8, _ index: UInt8) -> [UInt8] { [3, target, property, index] }
    static func link(_ target: UInt8, _ item: UInt8) -> [UInt8] { [4, target, item] }
    static func linksInsert(_ target: UInt8, at index: UInt8, _ item: UInt8) -> [UInt8] { [5, target, index, item] }
    static func linksRemove(_ target: UInt8, at index: UInt8) -> [UInt8] { [6, target, index, 0] }
    static func linksMove(_ target: UInt8, _ from: UInt8, _ to: UInt8) -> [UInt8] { [7, target, from, to] }
    static func setSpot(_ target: UInt8, _ spot: [UInt8]?) -> [UInt8] { [8, target] + (spot.map { [1] + $0 } ?? [0]) }
    /// which: even = spot, odd = spots[which / 2]; property: 0 label, 1 level, 2 item.
    static func editSpot(_ target: UInt8, which: UInt8, property: UInt8, _ value: UInt8) -> [UInt8] { [9, target, which, property, value] }
    /// kind: 0 insert, 1 replace, 2 remove, 3 move.
    static func spots(_ target: UInt8, kind: UInt8, _ first: UInt8, _ second: UInt8, _ spot: [UInt8] = opsSpot()) -> [UInt8] {
        [10, target, kind, first, second] + (kind < 2 ? spot : [])
    }
    /// value 8 removes the key.
    static func score(_ target: UInt8, key: UInt8, _ value: UInt8) -> [UInt8] { [11, target, key, value] }
    static func delete(_ target: UInt8) -> [UInt8] { [12, target] }
    /// The next `count` actions in one write; `throwing` makes its block throw after them.
    static func write(_ count: UInt8, throwing: Bool = false) -> [UInt8] { [13, count - 1 + (throwing ? 0x10 : 0)] }
    static func query(_ name: UInt8) -> [UInt8] { [14, name * 2] }
    static let compact: [UInt8] = [14, 1]
    static let reopen: [UInt8] = [15, 0]
    static let crashKeepAll: [UInt8] = [15, 1]
    static let crashDropAll: [UInt8] = [15, 2]
    static func crashRandom(_ seed: UInt8) -> [UInt8] { [15, 3, 0, seed] }
    /// A crash policy byte: 0 keep all, 1 drop all, 2 random (seeded by `seed`).
    static func policy(_ kind: UInt8, seed: UInt8 = 7) -> [UInt8] { kind == 2 ? [2, 0, seed] : [kind] }
    /// A crash image at the `sync`-th sync of compact().
    static func crashDuringCompact(sync: UInt8, _ policy: [UInt8]) -> [UInt8] { [15, 4, sync] + policy }
    /// A crash image at the `sync`-th sync of the next write, of `count` actions.
    static func crashDuringWrite(_ count: UInt8, sync: UInt8, _ policy: [UInt8]) -> [UInt8] {
        [15, 5 + 8 * (count - 1), sync] + policy
    }
}

/// Items 0, 1 and 2: 1 links to 0 and lists 0 and itself, 2 has a spot linking to 1.
let opsThreeItems = Ops.addItem(0) + Ops.addItem(1, opsValue(link: opsLink(0), links: [opsLink(0), opsLink(1)]))
    + Ops.addItem(2, opsValue(name: 4, spot: opsSpot(item: opsLink(1)), spots: [opsSpot(), opsSpot(label: 6)]))

let opsSeeds: [(String, [UInt8])] = [
    ("add-items-with-links", opsThreeItems + Ops.query(2)),
    ("add-self-linking-item", Ops.addItem(5, opsValue(link: opsLink(0), links: [opsLink(0), opsLink(0)]))),
    ("delete-linked-item", opsThreeItems + Ops.delete(0) + Ops.delete(0)),
    ("upsert-modified", opsThreeItems + Ops.addItem(1, policy: 1, opsValue(name: 6, weight: 3, spot: opsSpot()))
        + Ops.addItem(1, policy: 1, opsValue(name: 6, count: 5, weight: 3, links: [opsLink(2)]))),
    ("upsert-all", opsThreeItems + Ops.addItem(0, policy: 2, opsValue(extra: 5, links: [opsLink(2)]))),
    ("add-existing-key-fails", opsThreeItems + Ops.write(2) + Ops.addItem(7) + Ops.addItem(0)),
    ("notes-with-embedded-objects", opsThreeItems + Ops.addNote(opsValue(link: opsLink(1), spot: opsSpot(item: opsLink(2))))
        + Ops.addNote(opsValue(name: 3, spots: [opsSpot(item: opsLink(0))])) + Ops.delete(1)),
    ("scalar-sets", opsThreeItems + Ops.set(0, property: 0, 7) + Ops.set(1, property: 1, 4) + Ops.set(2, property: 2, 4)
        + Ops.set(0, property: 3, 6) + Ops.set(1, property: 3, 15)),
    ("list-edits", opsThreeItems + Ops.linksInsert(0, at: 0, opsLink(2)) + Ops.linksInsert(0, at: 9, opsLink(1))
        + Ops.linksInsert(0, at: 9, opsLink(0)) + Ops.linksMove(0, 0, 2) + Ops.linksMove(1, 0, 1) + Ops.linksRemove(1, at: 0)
        + Ops.link(2, opsLink(2))),
    ("embedded-edits", opsThreeItems + Ops.setSpot(0, opsSpot(label: 7)) + Ops.editSpot(2, which: 0, property: 0, 6)
        + Ops.editSpot(2, which: 1, property: 2, opsLink(0)) + Ops.spots(2, kind: 3, 0, 1) + Ops.spots(2, kind: 2, 0, 0)
        + Ops.spots(2, kind: 1, 0, 0) + Ops.spots(0, kind: 0, 0, 0) + Ops.setSpot(2, nil)),
    ("map-scores", opsThreeItems + Ops.score(0, key: 1, 3) + Ops.score(0, key: 2, 4) + Ops.score(0, key: 1, 8)
        + Ops.score(1, key: 0, 5)),
    ("throwing-write", opsThreeItems + Ops.write(3, throwing: true) + Ops.delete(0) + Ops.addNote() + Ops.set(1, property: 0, 1)),
    ("query-names", opsThreeItems + Ops.addNote(opsValue(name: 4)) + Ops.query(4) + Ops.query(2) + Ops.query(0)),
    ("compact-rolled-segments", (0..<8).flatMap { Ops.addItem($0, policy: 2, opsValue(name: 7, extra: 6, spots: [opsSpot(), opsSpot()])) }
        + (0..<8).flatMap { Ops.set($0, property: 3, 5) } + Ops.compact + Ops.delete(3) + Ops.compact + Ops.reopen),
    ("nested-100-levels", Ops.addItem(0, opsValue(extra: 16)) + Ops.addItem(1) + Ops.set(1, property: 3, 16) + Ops.reopen),
    ("nested-101-levels-refused", Ops.addItem(0, opsValue(extra: 17)) + Ops.addItem(1) + Ops.addNote(opsValue(extra: 17))
        + Ops.set(0, property: 3, 17) + Ops.write(2) + Ops.set(0, property: 1, 4) + Ops.set(0, property: 3, 17)
        + Ops.addItem(0, opsValue(extra: 17)) + Ops.addItem(1, opsValue(extra: 17)) + Ops.addItem(1, policy: 1, opsValue(extra: 17))),
    ("crash-after-compact", (0..<8).flatMap { Ops.addItem($0, policy: 2, opsValue(name: 7, extra: 6, spots: [opsSpot(), opsSpot()])) }
        + (0..<8).flatMap { Ops.set($0, property: 3, 5) } + Ops.delete(3) + Ops.compact + Ops.crashDropAll),
    ("reopen", opsThreeItems + Ops.reopen + Ops.delete(1) + Ops.reopen),
    ("crash-keep-all", opsThreeItems + Ops.crashKeepAll + Ops.addNote() + Ops.crashKeepAll),
    ("crash-drop-all", opsThreeItems + Ops.crashDropAll + Ops.delete(2) + Ops.crashDropAll),
    ("crash-random", opsThreeItems + Ops.crashRandom(1) + Ops.set(0, property: 0, 3) + Ops.crashRandom(2)),
    ("crash-during-write-first-sync", opsThreeItems + Ops.crashDuringWrite(2, sync: 0, Ops.policy(1)) + Ops.delete(0) + Ops.addNote()),
    ("crash-during-write-second-sync", opsThreeItems + Ops.crashDuringWrite(1, sync: 1, Ops.policy(2)) + Ops.addItem(6)
        + Ops.set(0, property: 0, 1)),
    ("crash-during-write-after-it", opsThreeItems + Ops.crashDuringWrite(1, sync: 9, Ops.policy(0)) + Ops.delete(1) + Ops.query(2)),
    ("crash-during-compact", (0..<8).flatMap { Ops.addItem($0, policy: 2, opsValue(name: 7, extra: 6, spots: [opsSpot(), opsSpot()])) }
        + (0..<6).flatMap { Ops.set($0, property: 3, 5) } + Ops.crashDuringCompact(sync: 1, Ops.policy(2, seed: 3))
        + Ops.delete(3) + Ops.crashDuringCompact(sync: 0, Ops.policy(1))),
]
