// Checking and decoding a hint file (format: HintFile.swift). Any bytes give a checked hint or a
// typed `.corruption` error naming the file and the offset; nothing traps, and no allocation is
// larger than the input allows (the entry count is checked against the bytes before reserving).
//
// `check` validates everything `decode` does, the order of the entries included, without making
// an entry of each: recovery walks a checked hint's entries straight from its bytes (EntryCursor)
// into the index. `decode` makes the entries (tests, tools, the fuzzer).
// Pure functions; safe from any thread.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension HintFile {
    /// A hint whose bytes passed every check: its header fields (`header.entries` is empty) and
    /// its entries as runs of one keyspace each, in ascending keyspace order.
    struct Checked: Sendable {
        /// The entries of one keyspace: `count` entries from byte `start` of `bytes`.
        struct Run: Sendable {
            var keyspace: Keyspace
            var start: Int
            var count: Int
        }

        var header: HintFile
        var runs: [Run]
        let bytes: [UInt8]

        /// Calls `body` with a cursor over the entries of `run`.
        func withEntries<R>(of run: Run, _ body: (inout EntryCursor) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes { raw in
                var cursor = EntryCursor(bytes: raw, offset: run.start, remaining: run.count)
                return try body(&cursor)
            }
        }
    }

    /// Reads checked entries in order, straight from a hint's bytes.
    struct EntryCursor {
        /// One entry: a put or a delete of `key` at the record [`offset`, +`length`).
        struct Entry {
            var isPut: Bool
            var key: KeyTree.SortKey
            var offset: UInt32
            var length: UInt32
        }

        fileprivate let bytes: UnsafeRawBufferPointer
        fileprivate var offset: Int
        fileprivate var remaining: Int

        /// The next entry, or nil after the last of the run.
        @inline(__always)
        mutating func next() -> Entry? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            let keyLength = Int(bytes.loadLittleEndian(at: offset + 5, as: UInt16.self))
            let keyStart = offset + HintFile.entryHeaderSize
            let entry = Entry(
                isPut: bytes[offset] == HintFile.putOp,
                key: KeyTree.SortKey(
                    bytes: UnsafeRawBufferPointer(rebasing: bytes[keyStart..<(keyStart + keyLength)]),
                    overreadable: bytes.count - keyStart >= 16),
                offset: bytes.loadLittleEndian(at: offset + 7, as: UInt32.self),
                length: bytes.loadLittleEndian(at: offset + 11, as: UInt32.self))
            offset = keyStart + keyLength
            return entry
        }
    }

    /// Decodes a whole hint file.
    /// - Throws: ``StrataError`` `.corruption` naming `file` and the offset of the first byte
    ///   that is wrong (recovery then scans the segment instead).
    static func decode(_ bytes: UnsafeRawBufferPointer, file: String) throws(StrataError) -> HintFile {
        let checked = try check(bytes, file: file)
        var hint = checked.header
        hint.entries.reserveCapacity(checked.runs.reduce(0) { $0 + $1.count })
        for run in checked.runs {
            checked.withEntries(of: run) { cursor in
                while let entry = cursor.next() {
                    hint.entries.append(HintEntry(
                        isPut: entry.isPut, keyspace: run.keyspace, key: entry.key.storageKey,
                        offset: entry.offset, length: entry.length))
                }
            }
        }
        return hint
    }

    /// Checks a whole hint file and keeps a copy of its bytes.
    /// - Throws: ``StrataError`` `.corruption` naming `file` and the offset of the first byte
    ///   that is wrong.
    static func check(_ bytes: UnsafeRawBufferPointer, file: String) throws(StrataError) -> Checked {
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
        let header = try checkHeader(body, fail: fail)
        let runs = try checkEntries(body, of: header, fail: fail)
        return Checked(header: header, runs: runs, bytes: Array(bytes))
    }

    /// The header fields of a hint whose checksum matched.
    private static func checkHeader(
        _ body: UnsafeRawBufferPointer, fail: (String, Int) -> StrataError
    ) throws(StrataError) -> HintFile {
        guard body.prefix(magic.count).elementsEqual(magic) else { throw fail("bad magic", 0) }
        let version = body.loadLittleEndian(at: 8, as: UInt16.self)
        guard version == Self.version else { throw fail("unsupported version \(version)", 8) }
        guard let kind = SegmentKind(rawValue: body[10]) else { throw fail("unknown segment kind \(body[10])", 10) }
        guard body[11] == 0, body.loadLittleEndian(at: 20, as: UInt32.self) == 0 else {
            throw fail("reserved bytes are not zero", body[11] == 0 ? 20 : 11)
        }
        let sealedLength = body.loadLittleEndian(at: 24, as: UInt64.self)
        let hint = HintFile(
            kind: kind, segmentNumber: body.loadLittleEndian(at: 12, as: UInt32.self),
            salt: body.loadLittleEndian(at: 16, as: UInt32.self), sealedLength: sealedLength,
            lastSequence: body.loadLittleEndian(at: 32, as: UInt64.self),
            floorSequence: body.loadLittleEndian(at: 40, as: UInt64.self),
            records: body.loadLittleEndian(at: 48, as: UInt32.self),
            uncommittedRecords: body.loadLittleEndian(at: 52, as: UInt32.self),
            committedEnd: body.loadLittleEndian(at: 56, as: UInt32.self), entries: [])
        guard UInt64(hint.committedEnd) <= sealedLength else {
            throw fail("committed end \(hint.committedEnd) is past the sealed length \(sealedLength)", 56)
        }
        return hint
    }

    /// Checks every entry (operation, bounds, strictly ascending keyspace and key order) and
    /// returns the runs of one keyspace each.
    private static func checkEntries(
        _ body: UnsafeRawBufferPointer, of hint: HintFile, fail: (String, Int) -> StrataError
    ) throws(StrataError) -> [Checked.Run] {
        let count = Int(body.loadLittleEndian(at: 60, as: UInt32.self))
        guard count <= (body.count - headerSize) / entryHeaderSize else {
            throw fail("\(count) entries cannot fit in \(body.count - headerSize) bytes", 60)
        }
        var runs: [Checked.Run] = []
        var previousKey: UnsafeRawBufferPointer?
        var previousSortKey = KeyTree.SortKey(high: 0, low: 0, longBytes: nil)
        var offset = headerSize
        for _ in 0..<count {
            guard body.count - offset >= entryHeaderSize else { throw fail("entry is cut short", offset) }
            let op = body[offset]
            guard op == putOp || (op == deleteOp && hint.kind == .log) else {
                throw fail("unknown entry operation \(op)", offset)
            }
            let keyspace = Keyspace(body.loadLittleEndian(at: offset + 1, as: UInt32.self))
            let keyLength = Int(body.loadLittleEndian(at: offset + 5, as: UInt16.self))
            let recordOffset = body.loadLittleEndian(at: offset + 7, as: UInt32.self)
            let recordLength = body.loadLittleEndian(at: offset + 11, as: UInt32.self)
            guard recordOffset >= SegmentHeader.size, recordLength > 0,
                  UInt64(recordOffset) + UInt64(recordLength) <= hint.sealedLength
            else { throw fail("entry's record [\(recordOffset), +\(recordLength)) is outside the segment", offset + 7) }
            let keyStart = offset + entryHeaderSize
            guard body.count - keyStart >= keyLength else { throw fail("entry's key is cut short", keyStart) }
            let key = UnsafeRawBufferPointer(rebasing: body[keyStart..<(keyStart + keyLength)])
            let sortKey = KeyTree.SortKey(bytes: key, overreadable: body.count - keyStart >= 16)
            if let last = runs.last, last.keyspace == keyspace {
                guard let previousKey, previousSortKey.high < sortKey.high
                    || (previousSortKey.high == sortKey.high && compareBytes(previousKey, key) < 0)
                else {
                    throw fail("entry's key does not follow the one before it", keyStart)
                }
                runs[runs.count - 1].count += 1
            } else {
                guard runs.last.map({ $0.keyspace.rawValue < keyspace.rawValue }) ?? true else {
                    throw fail("entry's keyspace \(keyspace.rawValue) does not follow the one before it", offset + 1)
                }
                runs.append(Checked.Run(keyspace: keyspace, start: offset, count: 1))
            }
            previousKey = key
            previousSortKey = sortKey
            offset = keyStart + keyLength
        }
        guard offset == body.count else { throw fail("\(body.count - offset) bytes follow the last entry", offset) }
        return runs
    }

    /// Byte-wise three-way comparison (a shorter key that is a prefix of a longer one sorts first).
    @inline(__always)
    private static func compareBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let shorter = min(left.count, right.count)
        if shorter > 0 {
            let order = Int(memcmp(left.baseAddress!, right.baseAddress!, shorter))
            if order != 0 { return order }
        }
        return left.count - right.count
    }
}
