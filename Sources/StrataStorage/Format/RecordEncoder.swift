// Appends records to a byte buffer in the frame described in RecordFormat.swift.
// Pure functions over a caller-owned buffer; safe from any thread.
//
// Each record's length is known before it is written, so the buffer grows once per record and
// the fields are stored in place; the CRC is computed last, over the finished bytes, seeded by
// the segment's seal and the record's offset in the segment (RecordSeal.swift). Every append
// takes `seal` and `bufferOffset`, the segment offset that `buffer[0]` will be written at.
// When `seal` carries a cipher, the payload of a put or delete is sealed before the CRC is
// computed (SegmentCipher.swift); commit records stay in the clear.

/// How puts decide to compress their value.
struct CompressionPolicy: Sendable {
    /// Values of at least this many bytes are compressed; `Int.max` turns compression off.
    var threshold: Int
    /// The zstd level.
    var level: Int32
}

enum RecordEncoder {
    /// Appends a put record; returns its offset in `buffer` and its whole length.
    static func appendPut(
        to buffer: inout [UInt8], sequence: UInt64, keyspace: Keyspace, key: StorageKey,
        value: UnsafeRawBufferPointer, compression: CompressionPolicy, seal: RecordSeal, bufferOffset: Int
    ) -> (offset: Int, length: Int) {
        if value.count >= compression.threshold {
            let compressed = ZstdCodec.compress(value, level: compression.level)
            // Keep the compressed form only when it saves space.
            if compressed.count + 4 < value.count {
                return compressed.withUnsafeBytes { compressed in
                    appendRecord(
                        to: &buffer, kind: .put, flags: RecordFormat.compressedFlag, sequence: sequence,
                        seal: seal, bufferOffset: bufferOffset,
                        payloadLength: RecordFormat.keyPrefixSize + key.count + 4 + compressed.count
                    ) { payload in
                        let end = storeKey(in: payload, keyspace: keyspace, key: key)
                        payload.storeLittleEndian(UInt32(value.count), at: end)
                        store(compressed, in: payload, at: end + 4)
                    }
                }
            }
        }
        return appendRecord(
            to: &buffer, kind: .put, flags: 0, sequence: sequence, seal: seal, bufferOffset: bufferOffset,
            payloadLength: RecordFormat.keyPrefixSize + key.count + value.count
        ) { payload in
            let end = storeKey(in: payload, keyspace: keyspace, key: key)
            store(value, in: payload, at: end)
        }
    }

    /// Appends a delete record (a tombstone); returns its offset in `buffer` and its length.
    static func appendDelete(
        to buffer: inout [UInt8], sequence: UInt64, keyspace: Keyspace, key: StorageKey,
        seal: RecordSeal, bufferOffset: Int
    ) -> (offset: Int, length: Int) {
        appendRecord(
            to: &buffer, kind: .delete, flags: 0, sequence: sequence, seal: seal, bufferOffset: bufferOffset,
            payloadLength: RecordFormat.keyPrefixSize + key.count
        ) { payload in
            _ = storeKey(in: payload, keyspace: keyspace, key: key)
        }
    }

    /// Appends the commit record that closes a transaction of `recordCount` records.
    static func appendCommit(
        to buffer: inout [UInt8], sequence: UInt64, recordCount: Int, syncedThrough: Int,
        seal: RecordSeal, bufferOffset: Int
    ) -> (offset: Int, length: Int) {
        appendRecord(
            to: &buffer, kind: .commit, flags: 0, sequence: sequence, seal: seal, bufferOffset: bufferOffset,
            payloadLength: RecordFormat.commitPayloadSize
        ) { payload in
            payload.storeLittleEndian(UInt32(recordCount), at: 0)
            payload.storeLittleEndian(UInt32(0), at: 4)
            payload.storeLittleEndian(UInt64(syncedThrough), at: 8)
        }
    }

    /// Appends a record of `kind` whose (plain) payload is `payload`: how compaction writes a
    /// record again for a segment with another cipher. Returns its offset in `buffer` and its
    /// whole length.
    static func appendRecord(
        to buffer: inout [UInt8], kind: RecordKind, flags: UInt8, sequence: UInt64,
        payload: UnsafeRawBufferPointer, seal: RecordSeal, bufferOffset: Int
    ) -> (offset: Int, length: Int) {
        appendRecord(
            to: &buffer, kind: kind, flags: flags, sequence: sequence, seal: seal, bufferOffset: bufferOffset,
            payloadLength: payload.count
        ) { store(payload, in: $0, at: 0) }
    }

    /// Appends one record whose payload of `payloadLength` bytes `fill` stores, then its header
    /// and CRC. Returns the record's offset in `buffer` and its whole length.
    private static func appendRecord(
        to buffer: inout [UInt8], kind: RecordKind, flags: UInt8, sequence: UInt64,
        seal: RecordSeal, bufferOffset: Int, payloadLength: Int,
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) -> (offset: Int, length: Int) {
        if let cipher = seal.cipher, kind != .commit {
            return appendSealedRecord(
                to: &buffer, kind: kind, flags: flags, sequence: sequence, seal: seal, cipher: cipher,
                bufferOffset: bufferOffset, payloadLength: payloadLength, fill: fill)
        }
        let start = buffer.count
        let length = RecordFormat.headerSize + payloadLength
        buffer.appendZeros(length)
        buffer.withUnsafeMutableBytes { raw in
            let record = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + length)])
            fill(UnsafeMutableRawBufferPointer(rebasing: record[RecordFormat.headerSize...]))
            record.storeLittleEndian(UInt32(payloadLength), at: 4)
            record[8] = kind.rawValue
            record[9] = flags
            record.storeLittleEndian(sequence, at: 10)
            reseal(record, seal: seal, at: bufferOffset + start)
        }
        return (start, length)
    }

    /// Appends a record whose payload `fill` stores, sealed with `cipher`, then its CRC.
    private static func appendSealedRecord(
        to buffer: inout [UInt8], kind: RecordKind, flags: UInt8, sequence: UInt64,
        seal: RecordSeal, cipher: SegmentCipher, bufferOffset: Int, payloadLength: Int,
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) -> (offset: Int, length: Int) {
        var plaintext = [UInt8](repeating: 0, count: payloadLength)
        plaintext.withUnsafeMutableBytes { fill($0) }
        let start = buffer.count
        let sealedLength = payloadLength + SegmentCipher.overhead
        let length = RecordFormat.headerSize + sealedLength
        buffer.appendZeros(length)
        buffer.withUnsafeMutableBytes { raw in
            let record = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + length)])
            record.storeLittleEndian(UInt32(sealedLength), at: 4)
            record[8] = kind.rawValue
            record[9] = flags
            record.storeLittleEndian(sequence, at: 10)
            let frameHeader = UnsafeRawBufferPointer(rebasing: record[4..<RecordFormat.headerSize])
            plaintext.withUnsafeBytes { plaintext in
                cipher.seal(
                    plaintext, frameHeader: frameHeader, at: bufferOffset + start,
                    into: UnsafeMutableRawBufferPointer(rebasing: record[RecordFormat.headerSize...]))
            }
            reseal(record, seal: seal, at: bufferOffset + start)
        }
        return (start, length)
    }

    /// Stores the checksum of the whole record `record` as it lies at `offset` of a segment
    /// sealed with `seal` (compaction moves records between segments with this).
    static func reseal(_ record: UnsafeMutableRawBufferPointer, seal: RecordSeal, at offset: Int) {
        let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: record[4...]), extending: seal.seed(at: offset))
        record.storeLittleEndian(CRC32C.mask(crc), at: 0)
    }

    /// Stores a put or delete payload's keyspace, key length and key; returns where they end.
    private static func storeKey(in payload: UnsafeMutableRawBufferPointer, keyspace: Keyspace, key: StorageKey) -> Int {
        payload.storeLittleEndian(keyspace.rawValue, at: 0)
        payload.storeLittleEndian(UInt16(key.count), at: 4)
        key.withUnsafeBytes { store($0, in: payload, at: RecordFormat.keyPrefixSize) }
        return RecordFormat.keyPrefixSize + key.count
    }

    private static func store(_ bytes: UnsafeRawBufferPointer, in payload: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (payload.baseAddress.unsafelyUnwrapped + offset).copyMemory(from: source, byteCount: bytes.count)
    }
}
