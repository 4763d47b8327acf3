// Appends records to a byte buffer in the frame described in RecordFormat.swift.
// Pure functions over a caller-owned buffer; safe from any thread.

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
        value: UnsafeRawBufferPointer, compression: CompressionPolicy
    ) -> (offset: Int, length: Int) {
        let start = beginRecord(in: &buffer)
        appendKey(to: &buffer, keyspace: keyspace, key: key)
        var flags: UInt8 = 0
        if value.count >= compression.threshold {
            let compressed = ZstdCodec.compress(value, level: compression.level)
            // Keep the compressed form only when it saves space.
            if compressed.count + 4 < value.count {
                flags |= RecordFormat.compressedFlag
                buffer.appendLittleEndian(UInt32(value.count))
                buffer.append(contentsOf: compressed)
            }
        }
        if flags & RecordFormat.compressedFlag == 0 {
            buffer.append(contentsOf: value)
        }
        return finishRecord(in: &buffer, start: start, kind: .put, flags: flags, sequence: sequence)
    }

    /// Appends a delete record (a tombstone); returns its offset in `buffer` and its length.
    static func appendDelete(
        to buffer: inout [UInt8], sequence: UInt64, keyspace: Keyspace, key: StorageKey
    ) -> (offset: Int, length: Int) {
        let start = beginRecord(in: &buffer)
        appendKey(to: &buffer, keyspace: keyspace, key: key)
        return finishRecord(in: &buffer, start: start, kind: .delete, flags: 0, sequence: sequence)
    }

    /// Appends the commit record that closes a transaction of `recordCount` records.
    static func appendCommit(
        to buffer: inout [UInt8], sequence: UInt64, recordCount: Int, syncedThrough: Int
    ) -> (offset: Int, length: Int) {
        let start = beginRecord(in: &buffer)
        buffer.appendLittleEndian(UInt32(recordCount))
        buffer.appendLittleEndian(UInt32(0))
        buffer.appendLittleEndian(UInt64(syncedThrough))
        return finishRecord(in: &buffer, start: start, kind: .commit, flags: 0, sequence: sequence)
    }

    private static func beginRecord(in buffer: inout [UInt8]) -> Int {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: RecordFormat.headerSize))
        return start
    }

    private static func appendKey(to buffer: inout [UInt8], keyspace: Keyspace, key: StorageKey) {
        buffer.appendLittleEndian(keyspace.rawValue)
        buffer.appendLittleEndian(UInt16(key.count))
        key.withUnsafeBytes { buffer.append(contentsOf: $0) }
    }

    /// Fills in the header of the record that starts at `start` and runs to the buffer's end.
    private static func finishRecord(
        in buffer: inout [UInt8], start: Int, kind: RecordKind, flags: UInt8, sequence: UInt64
    ) -> (offset: Int, length: Int) {
        let length = buffer.count - start
        buffer.withUnsafeMutableBytes { raw in
            let record = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + length)])
            record.storeLittleEndian(UInt32(length - RecordFormat.headerSize), at: 4)
            record[8] = kind.rawValue
            record[9] = flags
            record.storeLittleEndian(sequence, at: 10)
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: record[4...]))
            record.storeLittleEndian(CRC32C.mask(crc), at: 0)
        }
        return (start, length)
    }
}
