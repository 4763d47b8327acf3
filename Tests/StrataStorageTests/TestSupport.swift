import XCTest
@_spi(Testing) @testable import StrataStorage

/// Opens a store on `fileSystem` with small segments, so tests roll often.
func openStore(
    _ fileSystem: any FileSystem, directory: String = "/db", segmentSize: Int = 4096,
    durability: Durability = .full, compressionThreshold: Int = 1024, readOnly: Bool = false,
    salvage: Bool = false, encryptionKey: [UInt8]? = nil, openWithHints: Bool = false,
    dictionaryCompression: Store.DictionaryCompression = .automatic
) throws -> Store {
    var options = Store.Options()
    options.fileSystem = fileSystem
    options.segmentSize = segmentSize
    options.durability = durability
    options.compressionThreshold = compressionThreshold
    options.readOnly = readOnly
    options.salvage = salvage
    options.encryptionKey = encryptionKey
    options.openWithHints = openWithHints
    options.dictionaryCompression = dictionaryCompression
    return try Store(directory: directory, options: options)
}

/// Every key and value of every keyspace, as plain values for comparing with a model.
typealias Contents = [Keyspace: [StorageKey: [UInt8]]]

func contents(of snapshot: Snapshot) throws -> Contents {
    var result: Contents = [:]
    for keyspace in snapshot.keyspaces {
        var values: [StorageKey: [UInt8]] = [:]
        try snapshot.forEach(in: keyspace) { key, value in
            values[key] = Array(value)
            return true
        }
        result[keyspace] = values
    }
    return result
}

/// Applies a batch to a model of the store's contents.
func apply(_ batch: WriteBatch, to model: inout Contents) {
    for operation in batch.operations {
        if operation.isDelete {
            model[operation.keyspace]?[operation.key] = nil
            if model[operation.keyspace]?.isEmpty == true { model[operation.keyspace] = nil }
        } else {
            model[operation.keyspace, default: [:]][operation.key] = batch.withValue(of: operation) { Array($0) }
        }
    }
}


/// A deterministic workload of puts, overwrites and deletes over a few keyspaces, with some
/// large compressible values; `batches[i]` is commit i.
func makeWorkload(commits: Int, seed: UInt64) -> [WriteBatch] {
    var random = SplitMix64(seed: seed)
    var batches: [WriteBatch] = []
    for _ in 0..<commits {
        var batch = WriteBatch()
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let keyspace = Keyspace(UInt32.random(in: 1...2, using: &random))
            let key = StorageKey(UInt64.random(in: 0..<40, using: &random))
            if Int.random(in: 0..<5, using: &random) == 0 {
                batch.delete(key, in: keyspace)
            } else if Int.random(in: 0..<12, using: &random) == 0 {
                let byte = UInt8.random(in: 0...255, using: &random)
                batch.put(repeatElement(byte, count: 3000), forKey: key, in: keyspace)
            } else {
                let count = Int.random(in: 0...200, using: &random)
                batch.put((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }, forKey: key, in: keyspace)
            }
        }
        batches.append(batch)
    }
    return batches
}

/// Like ``makeWorkload(commits:seed:)``, but every value is a small JSON-like object of one
/// shape (100–200 bytes), the records a compaction dictionary is made for.
func makeSimilarWorkload(commits: Int, seed: UInt64, keys: UInt64 = 40) -> [WriteBatch] {
    var random = SplitMix64(seed: seed)
    var batches: [WriteBatch] = []
    for _ in 0..<commits {
        var batch = WriteBatch()
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let keyspace = Keyspace(UInt32.random(in: 1...2, using: &random))
            let id = UInt64.random(in: 0..<keys, using: &random)
            if Int.random(in: 0..<6, using: &random) == 0 {
                batch.delete(StorageKey(id), in: keyspace)
            } else {
                batch.put(similarValue(id: id, version: Int.random(in: 0..<1000, using: &random)), forKey: StorageKey(id), in: keyspace)
            }
        }
        batches.append(batch)
    }
    return batches
}

/// A small JSON-like object, the same shape for every `id`.
func similarValue(id: UInt64, version: Int) -> [UInt8] {
    Array(("{\"id\":\(id),\"name\":\"customer-\(id)\",\"email\":\"customer\(id)@example.com\","
        + "\"active\":\(id % 3 != 0),\"score\":\(version),\"city\":\"\(["Lyon", "Oslo", "Porto"][Int(id % 3)])\","
        + "\"tags\":[\"retail\",\"tier-\(id % 4)\"]}").utf8)
}

/// The model state after each prefix of `batches`: `states[i]` is the state after i commits.
func prefixStates(of batches: [WriteBatch]) -> [Contents] {
    var states: [Contents] = [[:]]
    var model: Contents = [:]
    for batch in batches {
        apply(batch, to: &model)
        states.append(model)
    }
    return states
}

struct SimulatedCrash: Error {}

/// The crash images taken at each sync point: keep everything unsynced, lose it all, and two
/// random mixes of kept, lost and torn writes and directory entries.
func crashPolicies(at point: Int) -> [(String, MemoryFileSystem.CrashPolicy)] {
    [("keepAll", .keepAll), ("dropAll", .dropAll),
     ("random-a", .random(seed: UInt64(point) &* 31 &+ 1)),
     ("random-b", .random(seed: UInt64(point) &* 131 &+ 7))]
}

/// An in-memory file system that, at its `crashAt`-th sync (if any), captures a crash image per
/// policy of `crashPolicies(at:)` and then fails that sync, as a crash stops the writer there.
func crashingFileSystem(at crashAt: Int?) -> (MemoryFileSystem, Locked<[(String, MemoryFileSystem)]>) {
    let fileSystem = MemoryFileSystem()
    let images = Locked<[(String, MemoryFileSystem)]>([])
    if let crashAt {
        let policies = crashPolicies(at: crashAt)
        fileSystem.setSyncHook { [unowned fileSystem] event in
            guard event.number == crashAt else { return }
            images.withLock { captured in
                for (name, policy) in policies { captured.append((name, fileSystem.crashImage(policy))) }
            }
            throw SimulatedCrash()
        }
    }
    return (fileSystem, images)
}

/// Seals the store's active segment and starts the next, as a roll does, so that a following
/// ``Store/compact()`` finds nothing to seal (for tests of what a compaction changes).
func sealActiveSegment(of store: Store) throws {
    try store.writer.withLock { state throws in try store.roll(&state) }
}
