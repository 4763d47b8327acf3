#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Reads one record frame (RecordFormat.swift) from bytes, checking everything it can.
// Pure functions; safe from any thread. Never traps on any input.

/// A record frame that passed its checksum and structural checks.
struct DecodedRecord {
    var kind: RecordKind
    var flags: UInt8
    var sequence: UInt64
    /// Bytes of the whole frame (header and payload).
    var length: Int
    /// The record's payload (a view into the decoded bytes).
    var payload: UnsafeRawBufferPointer
    /// The dictionary of the segment the record lies in, if it has one.
    var dictionary: ZstdDictionary? = nil

    /// For put and delete: the keyspace.
    var keyspace: Keyspace {
        Keyspace(payload.loadLittleEndian(at: 0, as: UInt32.self))
    }

    /// For put and delete: the key's bytes.
    var keyBytes: UnsafeRawBufferPointer {
        let count = Int(payload.loadLittleEndian(at: 4, as: UInt16.self))
        let start = RecordFormat.keyPrefixSize
        return UnsafeRawBufferPointer(rebasing: payload[start..<(start + count)])
    }

    /// For put: the stored value bytes, compressed when `isCompressed` (then preceded by the
    /// raw length, see `rawValueLength`).
    var valueBytes: UnsafeRawBufferPointer {
        let start = RecordFormat.keyPrefixSize + keyBytes.count + (isCompressed ? 4 : 0)
        return UnsafeRawBufferPointer(rebasing: payload[start...])
    }

    var isCompressed: Bool { flags & RecordFormat.compressedFlag != 0 }

    /// For put and delete: whether this is a record of `key` in `keyspace`.
    func isRecord(of key: StorageKey, in keyspace: Keyspace) -> Bool {
        guard self.keyspace == keyspace else { return false }
        let stored = keyBytes
        return key.withUnsafeBytes { expected in
            guard expected.count == stored.count else { return false }
            guard let left = expected.baseAddress, let right = stored.baseAddress else { return true }
            return memcmp(left, right, expected.count) == 0
        }
    }

    /// Whether a compressed value was compressed with the segment's dictionary.
    var usesDictionary: Bool { flags & RecordFormat.dictionaryFlag != 0 }

    /// For a compressed put: the length of the value once decompressed.
    var rawValueLength: Int {
        Int(payload.loadLittleEndian(at: RecordFormat.keyPrefixSize + keyBytes.count, as: UInt32.self))
    }

    /// For commit: how many records the transaction has before its commit record.
    var commitRecordCount: Int { Int(payload.loadLittleEndian(at: 0, as: UInt32.self)) }

    /// For commit: the segment offset the writer had synced when it wrote this commit.
    var commitSyncedThrough: Int {
        Int(truncatingIfNeeded: payload.loadLittleEndian(at: 8, as: UInt64.self))
    }

    /// The value of a put, decompressed when needed.
    /// - Throws: ``StrataError`` `.corruption` when a compressed value does not decode (with the
    ///   segment's dictionary when flagged so) or declares a size over
    ///   `RecordFormat.maxValueLength`, which no store writes.
    func value() throws -> [UInt8] {
        if isCompressed {
            // The decoder refuses a dictionary flag in a segment without one; checked again so
            // that no frame is ever decoded without the dictionary it needs.
            if usesDictionary, dictionary == nil {
                throw StrataError(.corruption, "value compressed with a dictionary in a segment without one")
            }
            return try ZstdCodec.decompress(
                valueBytes, decompressedSize: rawValueLength, limit: RecordFormat.maxValueLength,
                dictionary: usesDictionary ? dictionary : nil)
        }
        return Array(valueBytes)
    }
}

/// Why bytes are not a valid record.
enum RecordDamage: Error, Equatable, Sendable {
    /// Fewer bytes than a header remain.
    case shortHeader
    /// The header declares more payload than the file holds.
    case lengthPastEnd
    /// The declared length is over the format's limit.
    case impossibleLength
    /// The checksum does not match the bytes.
    case checksumMismatch
    /// The checksum matches but the kind is unknown (written by a newer version, or a bug).
    case unknownKind(UInt8)
    /// The checksum matches but flag bits this version does not know are set.
    case unknownFlags(UInt8)
    /// The checksum matches but the payload does not have its kind's structure.
    case malformedPayload(String)
    /// The checksum matches but the sealed payload of an encrypted segment does not
    /// authenticate under its key: changed since it was written, or moved.
    case authenticationFailed

    /// Whether a crash while appending could have produced this damage. Only such damage at
    /// the tail of the newest segment may end the log instead of being corruption.
    var couldBeTornWrite: Bool {
        switch self {
        case .shortHeader, .lengthPastEnd, .impossibleLength, .checksumMismatch: return true
        case .unknownKind, .unknownFlags, .malformedPayload, .authenticationFailed: return false
        }
    }

    var message: String {
        switch self {
        case .shortHeader: return "record header cut short"
        case .lengthPastEnd: return "record length runs past the end of the file"
        case .impossibleLength: return "record declares an impossible length"
        case .checksumMismatch: return "record checksum mismatch"
        case .unknownKind(let kind): return "unknown record kind \(kind)"
        case .unknownFlags(let flags): return "unknown record flags 0x\(String(flags, radix: 16))"
        case .malformedPayload(let why): return "malformed record payload: \(why)"
        case .authenticationFailed:
            return "record does not authenticate under the store's key (its bytes were changed or moved)"
        }
    }
}

enum RecordDecoder {
    /// Decodes the record at the start of `bytes` (which run to the end of the file), which lies
    /// at `offset` of a segment sealed with `seal`. Without `verifyingChecksum` (only for
    /// `Store.Options.verifyChecksumsOnRead == false`, on records recovery checked) the CRC is
    /// not recomputed, but every structural check still runs: bytes changed since recovery give
    /// damage, never an out-of-bounds read.
    ///
    /// With an encrypted `seal`, the payload of a put or delete stays sealed and only its
    /// length is checked: read such records through ``withDecoded(_:seal:at:verifyingChecksum:_:)``.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, seal: RecordSeal, at offset: Int, verifyingChecksum: Bool = true
    ) -> Result<DecodedRecord, RecordDamage> {
        guard bytes.count >= RecordFormat.headerSize else { return .failure(.shortHeader) }
        let payloadLength = Int(bytes.loadLittleEndian(at: 4, as: UInt32.self))
        guard payloadLength <= RecordFormat.maxPayloadLength else {
            return .failure(.impossibleLength)
        }
        let length = RecordFormat.headerSize + payloadLength
        guard length <= bytes.count else { return .failure(.lengthPastEnd) }
        if verifyingChecksum {
            let stored = CRC32C.unmask(bytes.loadLittleEndian(at: 0, as: UInt32.self))
            let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[4..<length]), extending: seal.seed(at: offset))
            guard stored == actual else { return .failure(.checksumMismatch) }
        }
        guard let kind = RecordKind(rawValue: bytes[8]) else { return .failure(.unknownKind(bytes[8])) }
        let flags = bytes[9]
        guard flags & ~RecordFormat.knownFlags == 0 else { return .failure(.unknownFlags(flags)) }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[RecordFormat.headerSize..<length])
        if seal.cipher != nil, kind != .commit {
            if payload.count < SegmentCipher.overhead { return .failure(.malformedPayload("sealed payload shorter than its nonce and tag")) }
        } else if let problem = structuralProblem(kind: kind, flags: flags, payload: payload, seal: seal) {
            return .failure(.malformedPayload(problem))
        }
        let sequence = bytes.loadLittleEndian(at: 10, as: UInt64.self)
        guard sequence < RecordFormat.maxSequence else {
            return .failure(.malformedPayload("sequence \(sequence) is beyond any a store reaches"))
        }
        return .success(DecodedRecord(
            kind: kind, flags: flags, sequence: sequence, length: length, payload: payload, dictionary: seal.dictionary))
    }

    /// Decodes the record at the start of `bytes` as ``decode(_:seal:at:verifyingChecksum:)``
    /// does and calls `body` with the result. For a put or delete of an encrypted segment the
    /// payload is opened first (authenticated, decrypted, then checked like a plain one);
    /// `body` sees the plaintext, valid only while it runs. Whatever the option, the tag of a
    /// sealed payload is always checked: it cannot be opened otherwise.
    static func withDecoded<R>(
        _ bytes: UnsafeRawBufferPointer, seal: RecordSeal, at offset: Int, verifyingChecksum: Bool = true,
        _ body: (Result<DecodedRecord, RecordDamage>) throws -> R
    ) rethrows -> R {
        let frame = decode(bytes, seal: seal, at: offset, verifyingChecksum: verifyingChecksum)
        guard let cipher = seal.cipher, case .success(var record) = frame, record.kind != .commit else {
            return try body(frame)
        }
        let frameHeader = UnsafeRawBufferPointer(rebasing: bytes[4..<RecordFormat.headerSize])
        return try cipher.open(record.payload, frameHeader: frameHeader, at: offset) { payload in
            guard let payload else { return try body(.failure(.authenticationFailed)) }
            if let problem = structuralProblem(kind: record.kind, flags: record.flags, payload: payload, seal: seal) {
                return try body(.failure(.malformedPayload(problem)))
            }
            record.payload = payload
            return try body(.success(record))
        }
    }

    private static func structuralProblem(
        kind: RecordKind, flags: UInt8, payload: UnsafeRawBufferPointer, seal: RecordSeal
    ) -> String? {
        switch kind {
        case .dictionary:
            // Where a dictionary record may lie is the scanners' and the loader's business.
            return flags != 0 ? "flags on a dictionary record" : nil
        case .commit:
            if payload.count != RecordFormat.commitPayloadSize { return "commit payload of \(payload.count) bytes" }
            if flags != 0 { return "flags on a commit record" }
            return nil
        case .put, .delete:
            guard payload.count >= RecordFormat.keyPrefixSize else { return "no room for a key" }
            let keyLength = Int(payload.loadLittleEndian(at: 4, as: UInt16.self))
            let afterKey = RecordFormat.keyPrefixSize + keyLength
            guard afterKey <= payload.count else { return "key runs past the payload" }
            if kind == .delete {
                if flags != 0 { return "flags on a delete record" }
                if afterKey != payload.count { return "bytes after a deleted key" }
            } else if flags & RecordFormat.compressedFlag != 0, afterKey + 4 > payload.count {
                return "compressed value without its length"
            } else if flags & RecordFormat.dictionaryFlag != 0 {
                if flags & RecordFormat.compressedFlag == 0 { return "dictionary flag on an uncompressed value" }
                if seal.dictionary == nil { return "value compressed with a dictionary in a segment without one" }
            }
            return nil
        }
    }
}
