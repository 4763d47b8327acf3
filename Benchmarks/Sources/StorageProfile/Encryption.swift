// `StorageProfile encryption [records]`: the cost of encryption at rest. Runs the same
// workloads on a plain store and on one opened with a 64-byte key, in the same process, and
// prints each figure (median of 3 rounds) and the ratio encrypted / plain:
//
//   insert   `records` puts in batches of 1,000, `.none` and `.full` (a new store each round)
//   get      `records` random point reads through `withValue`
//   scan     one `forEach` over every key, touching each value
//   reopen   opening the store of `records` (recovery reads, and decrypts, every record)

import Foundation
import StorageWorkloads
import StrataStorage

/// The key of the encrypted runs (fixed: the figures do not depend on it).
let benchmarkKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

func encryptionOptions(_ durability: Durability, encrypted: Bool) -> Store.Options {
    var options = Workloads.options(durability: durability)
    options.encryptionKey = encrypted ? benchmarkKey : nil
    return options
}

/// The median of `rounds` runs of `body`, in seconds of wall-clock time.
func medianSeconds(rounds: Int = 3, _ body: () throws -> Double) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<rounds { times.append(try body()) }
    return times.sorted()[rounds / 2]
}

/// Seconds to put `count` records into a new store.
func insertSeconds(_ durability: Durability, encrypted: Bool) throws -> Double {
    let directory = Workloads.makeScratchDirectory("profile-crypt-put")
    defer { Workloads.removeScratchDirectory(directory) }
    let store = try Store(directory: directory, options: encryptionOptions(durability, encrypted: encrypted))
    let timing = try Workloads.timed { try Workloads.put(count: count, into: store, durability: durability) }
    try store.close()
    return timing.wall
}

/// The figures of one kind of store: insert (.none, .full), get, scan and reopen seconds.
func encryptionFigures(encrypted: Bool) throws -> [String: Double] {
    var figures: [String: Double] = [:]
    figures["insert .none"] = try medianSeconds { try insertSeconds(.none, encrypted: encrypted) }
    figures["insert .full"] = try medianSeconds { try insertSeconds(.full, encrypted: encrypted) }
    let directory = Workloads.makeScratchDirectory("profile-crypt-store")
    defer { Workloads.removeScratchDirectory(directory) }
    let options = encryptionOptions(.none, encrypted: encrypted)
    let writer = try Store(directory: directory, options: options)
    try Workloads.put(count: count, into: writer, durability: .none)
    try writer.close()
    let store = try Store(directory: directory, options: options)
    let snapshot = store.snapshot()
    var sum: UInt64 = 0
    figures["get"] = try medianSeconds {
        try Workloads.timed { sum &+= try Workloads.randomGets(count, keyCount: count, from: snapshot) }.wall
    }
    figures["scan"] = try medianSeconds {
        try Workloads.timed {
            try snapshot.forEach(in: Workloads.keyspace) { _, value in
                sum &+= UInt64(value[0]) &+ UInt64(value.count)
                return true
            }
        }.wall
    }
    try store.close()
    figures["reopen"] = try medianSeconds {
        var reopened: Store?
        let time = try Workloads.timed { reopened = try Store(directory: directory, options: options) }.wall
        precondition(reopened?.statistics().keys == count)
        return time
    }
    print("  (checksum \(sum))")
    return figures
}

func runEncryption() throws {
    print("encryption: \(count) records of \(Workloads.valueSize) bytes, median of 3 rounds each")
    let plain = try encryptionFigures(encrypted: false)
    let encrypted = try encryptionFigures(encrypted: true)
    for name in ["insert .none", "insert .full", "get", "scan", "reopen"] {
        let (p, e) = (plain[name]!, encrypted[name]!)
        let rate = { (seconds: Double) in name == "reopen" ? String(format: "%.1f ms", seconds * 1000) : format(Double(count) / seconds) + "/s" }
        print(String(format: "%@: plain %@, encrypted %@, time ratio encrypted/plain %.2f×", name, rate(p), rate(e), e / p))
    }
}
