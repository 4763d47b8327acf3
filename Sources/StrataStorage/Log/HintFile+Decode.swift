// Decoding a hint file (format: HintFile.swift). Any bytes give a HintFile or a typed
// `.corruption` error naming the file and the offset; nothing traps, and no allocation is
// larger than the input allows (the entry count is checked against the bytes before reserving).
// A pure function; safe from any thread.

extension HintFile {
    /// Decodes a whole hint file.
    /// - Throws: ``StrataError`` `.corruption` naming `file` and the offset of the first byte
    ///   that is wrong (recovery then scans the segment instead).
    static func decode(_ bytes: UnsafeRawBufferPointer, file: String) throws(StrataError) -> HintFile {
        func fail(_ message: String, at offset: Int) -> StrataError {
            StrataError.corrupt("hint file: \(message)", file: file, offset: offset)
        }
        guard bytes.count >= headerSize + checksumSize else {
            throw fail("\(bytes.count) bytes is shorter than a hint's header and checksum", at: 0)
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - checksumSize)])
        let stored = bytes.loadLittleEndian(at: body.count, as: UInt32.self)
        guard CRC32C.mask(CRC32C.checksum(body)) == stored else {
            throw fail("checksum mismatch", at: body.count)
        }
        guard body.prefix(magic.count).elementsEqual(magic) else { throw fail("bad magic", at: 0) }
        let version = body.loadLittleEndian(at: 8, as: UInt16.self)
        guard version == Self.version else { throw fail("unsupported version \(version)", at: 8) }
        guard let kind = SegmentKind(rawValue: body[10]) else { throw fail("unknown segment kind \(body[10])", at: 10) }
        guard body[11] == 0, body.loadLittleEndian(at: 20, as: UInt32.self) == 0 else {
            throw fail("reserved bytes are not zero", at: body[11] == 0 ? 20 : 11)
        }
        let sealedLength = body.loadLittleEndian(at: 24, as: UInt64.self)
        let count = Int(body.loadLittleEndian(at: 60, as: UInt32.self))
        guard count <= (body.count - headerSize) / entryHeaderSize else {
            throw fail("\(count) entries cannot fit in \(body.count - headerSize) bytes", at: 60)
        }
        var hint = HintFile(
            kind: kind, segmentNumber: body.loadLittleEndian(at: 12, as: UInt32.self),
            salt: body.loadLittleEndian(at: 16, as: UInt32.self), sealedLength: sealedLength,
            lastSequence: body.loadLittleEndian(at: 32, as: UInt64.self),
            floorSequence: body.loadLittleEndian(at: 40, as: UInt64.self),
            records: body.loadLittleEndian(at: 48, as: UInt32.self),
            uncommittedRecords: body.loadLittleEndian(at: 52, as: UInt32.self),
            committedEnd: body.loadLittleEndian(at: 56, as: UInt32.self), entries: [])
        guard UInt64(hint.committedEnd) <= sealedLength else {
            throw fail("committed end \(hint.committedEnd) is past the sealed length \(sealedLength)", at: 56)
        }
        hint.entries.reserveCapacity(count)
        var offset = headerSize
        for _ in 0..<count {
            guard body.count - offset >= entryHeaderSize else { throw fail("entry is cut short", at: offset) }
            let op = body[offset]
            guard op == putOp || (op == deleteOp && kind == .log) else {
                throw fail("unknown entry operation \(op)", at: offset)
            }
            let keyLength = Int(body.loadLittleEndian(at: offset + 5, as: UInt16.self))
            let recordOffset = body.loadLittleEndian(at: offset + 7, as: UInt32.self)
            let recordLength = body.loadLittleEndian(at: offset + 11, as: UInt32.self)
            guard recordOffset >= SegmentHeader.size, recordLength > 0,
                  UInt64(recordOffset) + UInt64(recordLength) <= sealedLength
            else { throw fail("entry's record [\(recordOffset), +\(recordLength)) is outside the segment", at: offset + 7) }
            let keyStart = offset + entryHeaderSize
            guard body.count - keyStart >= keyLength else { throw fail("entry's key is cut short", at: keyStart) }
            hint.entries.append(HintEntry(
                isPut: op == putOp, keyspace: Keyspace(body.loadLittleEndian(at: offset + 1, as: UInt32.self)),
                key: StorageKey(UnsafeRawBufferPointer(rebasing: body[keyStart..<(keyStart + keyLength)])),
                offset: recordOffset, length: recordLength))
            offset = keyStart + keyLength
        }
        guard offset == body.count else { throw fail("\(body.count - offset) bytes follow the last entry", at: offset) }
        return hint
    }
}
