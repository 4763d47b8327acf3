// Turns an OpsFuzzer input into steps, each with the model state the database must hold after
// it. Decoding runs the model as it goes, so every index and target an action names is valid
// (a byte picks among what exists, modulo its count); an action with nothing to act on (no
// object, an empty list) is dropped. Missing bytes read as 0.
//
// Input: a sequence of operations, each an opcode byte (modulo 16) and its argument bytes:
//
//   0, 1   add an OpsItem: id, update policy (0 .error, 1 .modified, 2 .all), value
//   2      add an OpsNote: value
//   3      set a scalar: target, property (name, count, weight, extra), pool index
//   4      set the to-one link: target, item (or nil)
//   5      links: insert or append (target, index, item); 6 remove (target, index);
//   7      move (target, from, to)
//   8      replace or clear the embedded spot: target, spot (or nil)
//   9      edit spot or spots[i] in place: target, which, property, value
//   10     spots: insert/append, replace, remove or move: target, kind, indexes, spot
//   11     set or remove a map entry: target, key, value (or remove)
//   12     delete: target
//   13     one write of 1–4 of the actions above (opcodes modulo 13): count and mode (bit 4:
//          the block throws after them)
//   14     query the indexed name (even argument) or compact (odd)
//   15     by argument % 8: reopen (0); crash keeping all unsynced writes (1), dropping them
//          (2), or a random mix (3; two bytes seed it); crash at a sync point (a byte) during
//          compact() (4) or during the next write of 1–4 actions (5–7), with a crash policy
//          (a byte: keep all, drop all, random seeded by two more bytes)
//
// A value (add): name, count, weight, extra, link, links (count % 4, items), spot (or nil),
// spots (count % 3, spots), scores (count % 3, key and value). A spot: label, level, item.

struct OpsByteReader {
    let bytes: [UInt8]
    var position = 0

    var isAtEnd: Bool { position >= bytes.count }

    /// The next byte; 0 past the end.
    mutating func next() -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position])
    }
}

/// Decodes an input into steps and the model after each.
public struct OpsDecoder {
    var reader: OpsByteReader
    /// The committed model.
    var model = OpsModel()
    /// At most this many steps (a long input is cut).
    static let maxSteps = 64

    public init(_ input: [UInt8]) { reader = OpsByteReader(bytes: input) }

    /// Every step with the model after it.
    public mutating func decode() -> [(OpsStep, OpsModel)] {
        var steps: [(OpsStep, OpsModel)] = []
        while !reader.isAtEnd, steps.count < Self.maxSteps {
            if let step = nextStep() { steps.append((step, model)) }
        }
        return steps
    }

    mutating func nextStep() -> OpsStep? {
        let opcode = reader.next() % 16
        switch opcode {
        case 13:
            let mode = reader.next()
            return write(count: 1 + mode % 4, throwing: mode & 0x10 != 0)
        case 14:
            let argument = reader.next()
            return argument % 2 == 0 ? .query((argument / 2) % OpsPools.strings.count) : .compact
        case 15:
            let argument = reader.next()
            switch argument % 8 {
            case 0: return .reopen
            case 1: return .crash(.keepAll)
            case 2: return .crash(.dropAll)
            case 3: return .crash(.random(seed: seed()))
            case 4: return .crashDuringCompact(sync: reader.next(), crash())
            default: return crashingWrite(count: 1 + (argument / 8) % 4)
            }
        default:
            return write(count: 1, throwing: false, opcode: opcode)
        }
    }

    /// A write of `count` actions; the model commits unless it throws or an action fails.
    mutating func seed() -> UInt64 { UInt64(reader.next() << 8 | reader.next()) }

    mutating func crash() -> OpsCrash {
        switch reader.next() % 3 {
        case 0: return .keepAll
        case 1: return .dropAll
        default: return .random(seed: seed())
        }
    }

    /// A write of `count` actions crashed at a sync point; a plain write when it does not commit.
    mutating func crashingWrite(count: Int) -> OpsStep? {
        let sync = reader.next()
        let crash = crash()
        let before = model
        let step = write(count: count, throwing: false)
        guard case .write(let actions, .commit)? = step else { return step }
        return .crashDuringWrite(actions, before: before, sync: sync, crash)
    }

    /// `opcode`, when given, is the first action's (already read).
    mutating func write(count: Int, throwing: Bool, opcode: Int? = nil) -> OpsStep? {
        var working = model
        var actions: [OpsAction] = []
        var first = opcode
        for _ in 0..<count {
            let code = first ?? reader.next() % 13
            first = nil
            guard let action = nextAction(code, working) else { continue }
            actions.append(action)
            if let failure = working.apply(action) { return .write(actions, .failing(failure)) }
        }
        if actions.isEmpty { return nil }
        if throwing { return .write(actions, .throwing) }
        model = working
        return .write(actions, .commit)
    }
}
