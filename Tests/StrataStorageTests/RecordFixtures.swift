@_spi(Testing) @testable import StrataStorage

// Record frames and small stores for the record-format and recovery tests.

/// A closed store in `/db` with three commits (sequences 1…3), commit i putting key i =
/// "value-i" in keyspace 1, all in `000001.seg`; returns its file system.
func storeWithThreeCommits() throws -> MemoryFileSystem {
    let fileSystem = MemoryFileSystem()
    let store = try openStore(fileSystem, segmentSize: 1 << 20)
    for i in 0..<3 {
        var batch = WriteBatch()
        batch.put(Array("value-\(i)".utf8), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
        try store.commit(batch)
    }
    try store.close()
    return fileSystem
}

/// Appends `bytes` to the file at `path` (durably, as if a crash had left them there).
func append(_ bytes: [UInt8], to path: String, in fileSystem: MemoryFileSystem) {
    let current = fileSystem.contents(of: path)!
    fileSystem.setContents(current + bytes, of: path)
}

/// A record frame of any kind, flags and payload, with a correct checksum for `offset` of a
/// segment sealed with `seal` (by default, the first record of a version-1 segment), so that the
/// decoder judges what follows the checksum.
func frame(
    kind: UInt8, flags: UInt8 = 0, sequence: UInt64, payload: [UInt8], seal: RecordSeal = .unsalted, at offset: Int = 0
) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: RecordFormat.headerSize)
    bytes.append(contentsOf: payload)
    bytes.withUnsafeMutableBytes { raw in
        raw.storeLittleEndian(UInt32(payload.count), at: 4)
        raw[8] = kind
        raw[9] = flags
        raw.storeLittleEndian(sequence, at: 10)
        RecordEncoder.reseal(raw, seal: seal, at: offset)
    }
    return bytes
}

/// Decodes the record at the start of `bytes`, as the first record of a version-1 segment.
func decode(_ bytes: [UInt8]) -> Result<DecodedRecord, RecordDamage> {
    // The decoded record points into `bytes`; callers keep only what they compare.
    bytes.withUnsafeBytes { RecordDecoder.decode($0, seal: .unsalted, at: 0) }
}

/// What is wrong with the record at the start of `bytes`, or nil when it decodes.
func damage(_ bytes: [UInt8]) -> RecordDamage? {
    if case .failure(let damage) = decode(bytes) { return damage }
    return nil
}

/// The payload of a put or delete: keyspace, key length, key, then `rest`.
func keyedPayload(keyspace: UInt32 = 1, key: [UInt8], rest: [UInt8] = []) -> [UInt8] {
    var payload = [UInt8](repeating: 0, count: RecordFormat.keyPrefixSize)
    payload.withUnsafeMutableBytes { raw in
        raw.storeLittleEndian(keyspace, at: 0)
        raw.storeLittleEndian(UInt16(key.count), at: 4)
    }
    return payload + key + rest
}
