// How OpsRun applies a write's actions to the database, through the public API only.

import Foundation
import Strata

extension OpsRun {
    func write(_ actions: [OpsAction], _ end: OpsWriteEnd) {
        var performed = 0
        do {
            try db.write {
                for action in actions {
                    try perform(action)
                    performed += 1
                }
                if end == .throwing { throw OpsRollback() }
            }
            if end != .commit { fail("the write committed; the model expects it to fail (\(end))") }
        } catch is OpsRollback {
            if end != .throwing { fail("the harness's error escaped a write that does not throw") }
        } catch let error as StrataError {
            guard case .failing(let failure) = end, expects(failure, error, performed: performed, of: actions.count) else {
                fail("action \(performed) of the write threw \(error.code.name): \(error)")
            }
        } catch {
            fail("the write threw a non-StrataError: \(error)")
        }
    }

    /// Whether a write whose last action fails for `failure` may throw `error` once `performed`
    /// of its `count` actions returned: `add` throws; a setter's error fails the commit.
    func expects(_ failure: OpsFailure, _ error: StrataError, performed: Int, of count: Int) -> Bool {
        let codes: [StrataError.Code] = switch failure {
        case .primaryKeyExists: [.primaryKeyExists]
        case .tooDeep: [.invalidValue]
        case .either: [.primaryKeyExists, .invalidValue]
        }
        let mayFailAtCommit = failure != .primaryKeyExists
        return codes.contains(error.code) && (performed == count - 1 || (performed == count && mayFailAtCommit))
    }

    /// The stored object `target` names (it must exist).
    func object(_ target: OpsTarget) -> OpsObject {
        switch target {
        case .item(let id):
            guard let item = db.object(ofType: OpsItem.self, forPrimaryKey: id) else { fail("\(target) is missing") }
            return item
        case .note(let serial):
            let found = db.objects(OpsNote.self).where { $0.serial == serial }
            guard found.count == 1, let note = found.first else { fail("\(found.count) objects are \(target)") }
            return note
        }
    }

    /// The stored item `id`, or `own` (an object being added) when it has that id.
    func item(_ id: Int?, own: OpsItem? = nil) -> OpsItem? {
        guard let id else { return nil }
        if let own, own.id == id { return own }
        guard let item = db.object(ofType: OpsItem.self, forPrimaryKey: id) else { fail("item \(id) is missing") }
        return item
    }

    func spot(_ value: OpsSpotValue, own: OpsItem? = nil) -> OpsSpot {
        let spot = OpsSpot()
        spot.label = OpsPools.strings[value.label]
        spot.level = OpsPools.ints[value.level]
        spot.item = item(value.item, own: own)
        return spot
    }

    /// Sets every property of a new (unmanaged) object to `value`.
    func fill(_ object: OpsObject, _ value: OpsValue, own: OpsItem?) {
        object.name = OpsPools.strings[value.name]
        object.count = OpsPools.ints[value.count]
        object.weight = OpsPools.doubles[value.weight]
        object.extra = OpsPools.anyValues[value.extra]
        object.link = item(value.link, own: own)
        for id in value.links { object.links.append(item(id, own: own)!) }
        object.spot = value.spot.map { spot($0, own: own) }
        for spotValue in value.spots { object.spots.append(spot(spotValue, own: own)) }
        for (key, index) in value.scores { object.scores[OpsPools.strings[key]] = OpsPools.ints[index] }
    }

    func perform(_ action: OpsAction) throws {
        switch action {
        case .addItem(let id, let value, let policy):
            let item = OpsItem()
            item.id = id
            fill(item, value, own: item)
            do {
                try db.add(item, update: [.error, .modified, .all][policy])
            } catch {
                // Unmanaged, it may link to itself: break the cycle so that it is freed.
                item.link = nil
                item.links.removeAll()
                item.spot = nil
                item.spots.removeAll()
                throw error
            }
        case .addNote(let serial, let value):
            let note = OpsNote()
            note.serial = serial
            fill(note, value, own: nil)
            try db.add(note)
        case .setName(let target, let index): object(target).name = OpsPools.strings[index]
        case .setCount(let target, let index): object(target).count = OpsPools.ints[index]
        case .setWeight(let target, let index): object(target).weight = OpsPools.doubles[index]
        case .setExtra(let target, let index): object(target).extra = OpsPools.anyValues[index]
        case .setLink(let target, let id): object(target).link = item(id)
        case .linksInsert(let target, let index, let id):
            let links = object(target).links
            if index == links.count { links.append(item(id)!) } else { links.insert(item(id)!, at: index) }
        case .linksRemove(let target, let index): object(target).links.remove(at: index)
        case .linksMove(let target, let from, let to): object(target).links.move(from: from, to: to)
        case .setSpot(let target, let value): object(target).spot = value.map { spot($0) }
        case .editSpot(let target, let index, let edit):
            let object = object(target)
            guard let spot = index.map({ object.spots[$0] }) ?? object.spot else { fail("\(target) has no spot") }
            switch edit {
            case .label(let label): spot.label = OpsPools.strings[label]
            case .level(let level): spot.level = OpsPools.ints[level]
            case .item(let id): spot.item = item(id)
            }
        default:
            try performCollectionAction(action)
        }
    }

    func performCollectionAction(_ action: OpsAction) throws {
        switch action {
        case .spotsInsert(let target, let index, let value):
            let spots = object(target).spots
            holdingSpots(spots, gone: nil) {
                if index == spots.count { spots.append(spot(value)) } else { spots.insert(spot(value), at: index) }
            }
        case .spotsReplace(let target, let index, let value):
            let spots = object(target).spots
            holdingSpots(spots, gone: index) { spots[index] = spot(value) }
        case .spotsRemove(let target, let index):
            let spots = object(target).spots
            holdingSpots(spots, gone: index) { spots.remove(at: index) }
        case .spotsMove(let target, let from, let to):
            let spots = object(target).spots
            holdingSpots(spots, gone: nil) { spots.move(from: from, to: to) }
        case .setScore(let target, let key, let index):
            object(target).scores[OpsPools.strings[key]] = index.map { OpsPools.ints[$0] }
        case .delete(let target): try deleteHolding(object(target))
        default: fail("unhandled action \(action)")
        }
    }
}
