// The action half of OpsDecoder: one action (opcodes 0–12, see OpsFuzzerDecoder.swift) read
// against the model of the write so far.

extension OpsDecoder {
    /// The action of `opcode`, or nil when there is nothing for it to act on.
    mutating func nextAction(_ opcode: Int, _ model: OpsModel) -> OpsAction? {
        switch opcode {
        case 0, 1:
            let id = reader.next() % OpsPools.itemIDs
            let policy = reader.next() % 3
            return .addItem(id: id, value(model, own: id), policy: policy)
        case 2:
            return .addNote(serial: model.nextSerial, value(model, own: nil))
        case 3:
            guard let target = target(model) else { return nil }
            let property = reader.next()
            let index = reader.next()
            switch property % 4 {
            case 0: return .setName(target, index % OpsPools.strings.count)
            case 1: return .setCount(target, index % OpsPools.ints.count)
            case 2: return .setWeight(target, index % OpsPools.doubles.count)
            default: return .setExtra(target, index % OpsPools.anyValues.count)
            }
        case 4:
            guard let target = target(model) else { return nil }
            return .setLink(target, item(model))
        case 5, 6, 7:
            return linksAction(opcode, model)
        case 8:
            guard let target = target(model) else { return nil }
            return .setSpot(target, reader.next() % 3 == 0 ? nil : spot(model))
        case 9:
            return spotEdit(model)
        case 10:
            return spotsAction(model)
        case 11:
            guard let target = target(model) else { return nil }
            let key = reader.next() % OpsPools.strings.count
            let value = reader.next()
            return .setScore(target, key: key, value: value % 9 == 8 ? nil : value % OpsPools.ints.count)
        default:
            guard let target = target(model) else { return nil }
            return .delete(target)
        }
    }

    /// An object of the model (items first, then notes), or nil when there is none.
    mutating func target(_ model: OpsModel) -> OpsTarget? {
        let targets = model.targets
        let byte = reader.next()
        return targets.isEmpty ? nil : targets[byte % targets.count]
    }

    /// An item id to link to, or nil (one byte in five, and when there is no item). `own` is
    /// the id of the item being added, which a link may name too.
    mutating func item(_ model: OpsModel, own: Int? = nil) -> Int? {
        let byte = reader.next()
        var ids = Set(model.items.keys)
        if let own { ids.insert(own) }
        guard byte % 5 != 0, !ids.isEmpty else { return nil }
        return ids.sorted()[(byte / 5) % ids.count]
    }

    mutating func spot(_ model: OpsModel, own: Int? = nil) -> OpsSpotValue {
        OpsSpotValue(label: reader.next() % OpsPools.strings.count, level: reader.next() % OpsPools.ints.count,
                     item: item(model, own: own))
    }

    /// A new object's values; `own` is the id of the item being added.
    mutating func value(_ model: OpsModel, own: Int?) -> OpsValue {
        var value = OpsValue()
        value.name = reader.next() % OpsPools.strings.count
        value.count = reader.next() % OpsPools.ints.count
        value.weight = reader.next() % OpsPools.doubles.count
        value.extra = reader.next() % OpsPools.anyValues.count
        value.link = item(model, own: own)
        for _ in 0..<(reader.next() % 4) {
            if let id = item(model, own: own) { value.links.append(id) }
        }
        if reader.next() % 3 != 0 { value.spot = spot(model, own: own) }
        for _ in 0..<(reader.next() % 3) { value.spots.append(spot(model, own: own)) }
        for _ in 0..<(reader.next() % 3) {
            value.scores[reader.next() % OpsPools.strings.count] = reader.next() % OpsPools.ints.count
        }
        return value
    }

    mutating func linksAction(_ opcode: Int, _ model: OpsModel) -> OpsAction? {
        guard let target = target(model) else { return nil }
        let count = model[target]!.links.count
        if opcode == 5 {
            let index = reader.next() % (count + 1)
            guard let id = item(model) else { return nil }
            return .linksInsert(target, at: index, id)
        }
        let from = reader.next()
        let to = reader.next()
        guard count > 0 else { return nil }
        return opcode == 6 ? .linksRemove(target, at: from % count) : .linksMove(target, from: from % count, to: to % count)
    }

    mutating func spotEdit(_ model: OpsModel) -> OpsAction? {
        guard let target = target(model) else { return nil }
        let value = model[target]!
        let which = reader.next()
        let property = reader.next()
        let edit: OpsSpotEdit
        switch property % 3 {
        case 0: edit = .label(reader.next() % OpsPools.strings.count)
        case 1: edit = .level(reader.next() % OpsPools.ints.count)
        default: edit = .item(item(model))
        }
        if which % 2 == 0 || value.spots.isEmpty {
            return value.spot == nil ? nil : .editSpot(target, at: nil, edit)
        }
        return .editSpot(target, at: (which / 2) % value.spots.count, edit)
    }

    mutating func spotsAction(_ model: OpsModel) -> OpsAction? {
        guard let target = target(model) else { return nil }
        let count = model[target]!.spots.count
        let kind = reader.next() % 4
        let first = reader.next()
        let second = reader.next()
        switch kind {
        case 0: return .spotsInsert(target, at: first % (count + 1), spot(model))
        case 1: return count == 0 ? nil : .spotsReplace(target, at: first % count, spot(model))
        case 2: return count == 0 ? nil : .spotsRemove(target, at: first % count)
        default: return count == 0 ? nil : .spotsMove(target, from: first % count, to: second % count)
        }
    }
}
