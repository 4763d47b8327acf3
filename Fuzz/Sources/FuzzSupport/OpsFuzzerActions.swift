// The OpsFuzzer's operations: the changes a write makes (`OpsAction`), the steps of a run
// (`OpsStep`), and how the model applies an action.

/// One change inside a write. Indexes are valid for the model the action was decoded against.
public enum OpsAction: Sendable, Equatable {
    /// `add(_:update:)` of a new OpsItem; policy 0 `.error`, 1 `.modified`, 2 `.all`.
    case addItem(id: Int, OpsValue, policy: Int)
    /// `add(_:)` of a new OpsNote.
    case addNote(serial: Int, OpsValue)
    case setName(OpsTarget, Int)
    case setCount(OpsTarget, Int)
    case setWeight(OpsTarget, Int)
    case setExtra(OpsTarget, Int)
    case setLink(OpsTarget, Int?)
    /// `links.insert(_:at:)`, or `links.append(_:)` when `at` is the list's count.
    case linksInsert(OpsTarget, at: Int, Int)
    case linksRemove(OpsTarget, at: Int)
    case linksMove(OpsTarget, from: Int, to: Int)
    /// Replaces (or clears) the embedded `spot`.
    case setSpot(OpsTarget, OpsSpotValue?)
    /// Edits `spot` (index nil) or `spots[index]` in place.
    case editSpot(OpsTarget, at: Int?, OpsSpotEdit)
    /// `spots.insert(_:at:)`, or `spots.append(_:)` when `at` is the list's count.
    case spotsInsert(OpsTarget, at: Int, OpsSpotValue)
    case spotsReplace(OpsTarget, at: Int, OpsSpotValue)
    case spotsRemove(OpsTarget, at: Int)
    case spotsMove(OpsTarget, from: Int, to: Int)
    /// Sets (value non-nil) or removes `scores[key]`.
    case setScore(OpsTarget, key: Int, value: Int?)
    case delete(OpsTarget)
}

/// One property change of an embedded OpsSpot.
public enum OpsSpotEdit: Sendable, Equatable {
    case label(Int)
    case level(Int)
    case item(Int?)
}

/// How a write ends.
public enum OpsWriteEnd: Sendable, Equatable {
    /// It commits.
    case commit
    /// The block throws after its last action: everything is rolled back.
    case throwing
    /// The last action fails (an `add` throws, or a setter's error fails the commit):
    /// everything is rolled back.
    case failing(OpsFailure)
}

/// Why an action fails.
public enum OpsFailure: Sendable, Equatable {
    /// `add` with `.error` of an existing key: `.primaryKeyExists`.
    case primaryKeyExists
    /// A value nested deeper than 100 levels (OpsPools.tooDeep): `.invalidValue`, thrown by
    /// `add` or, for a setter, by the commit.
    case tooDeep
    /// Both at once (an `add` with `.error` of an existing key and a value too deep): either.
    case either
}

/// How a simulated crash treats unsynced writes.
public enum OpsCrash: Sendable, Equatable {
    case keepAll
    case dropAll
    case random(seed: UInt64)
}

/// One step of a run.
public enum OpsStep: Sendable, Equatable {
    case write([OpsAction], OpsWriteEnd)
    /// Equality on the indexed `name` (string pool index) of both classes, against a scan.
    case query(Int)
    case compact
    case reopen
    case crash(OpsCrash)
    /// A write that commits, with a crash image taken at its `sync`-th sync (counted from 0;
    /// after the write when it syncs fewer times). The image must hold the model before the
    /// write or after it; the run goes on from the image, and ends there when it holds `before`.
    case crashDuringWrite([OpsAction], before: OpsModel, sync: Int, OpsCrash)
    /// `compact()`, with a crash image taken at its `sync`-th sync: the image must hold the model.
    case crashDuringCompact(sync: Int, OpsCrash)
}

extension OpsModel {
    /// Applies `action`; returns why it fails (changing nothing), or nil.
    mutating func apply(_ action: OpsAction) -> OpsFailure? {
        switch action {
        case .addItem(let id, let value, let policy):
            let exists = items[id] != nil && policy == 0
            if exists || value.extra == OpsPools.tooDeep {
                return exists ? (value.extra == OpsPools.tooDeep ? .either : .primaryKeyExists) : .tooDeep
            }
            items[id] = value
        case .addNote(let serial, let value):
            if value.extra == OpsPools.tooDeep { return .tooDeep }
            notes[serial] = value
            nextSerial = serial + 1
        case .setName(let target, let index): self[target]!.name = index
        case .setCount(let target, let index): self[target]!.count = index
        case .setWeight(let target, let index): self[target]!.weight = index
        case .setExtra(let target, let index):
            if index == OpsPools.tooDeep { return .tooDeep }
            self[target]!.extra = index
        case .setLink(let target, let id): self[target]!.link = id
        case .linksInsert(let target, let index, let id): self[target]!.links.insert(id, at: index)
        case .linksRemove(let target, let index): self[target]!.links.remove(at: index)
        case .linksMove(let target, let from, let to):
            self[target]!.links.insert(self[target]!.links.remove(at: from), at: to)
        case .setSpot(let target, let spot): self[target]!.spot = spot
        case .editSpot(let target, let index, let edit):
            if let index { self[target]!.spots[index].apply(edit) } else { self[target]!.spot!.apply(edit) }
        case .spotsInsert(let target, let index, let spot): self[target]!.spots.insert(spot, at: index)
        case .spotsReplace(let target, let index, let spot): self[target]!.spots[index] = spot
        case .spotsRemove(let target, let index): self[target]!.spots.remove(at: index)
        case .spotsMove(let target, let from, let to):
            self[target]!.spots.insert(self[target]!.spots.remove(at: from), at: to)
        case .setScore(let target, let key, let value): self[target]!.scores[key] = value
        case .delete(let target): delete(target)
        }
        return nil
    }
}

extension OpsSpotValue {
    mutating func apply(_ edit: OpsSpotEdit) {
        switch edit {
        case .label(let index): label = index
        case .level(let index): level = index
        case .item(let id): item = id
        }
    }
}
