import CZstd

// A zstd dictionary of one compacted segment: its bytes as stored in the segment's dictionary
// record (SegmentDictionary.swift), its id (the segment header's dictionary id) and the
// digested form zstd decompresses with (`ZSTD_DDict`), made once when the segment is opened and
// shared by every read of it. The compressing form (`ZSTD_CDict`) is made only by the
// compaction that writes such segments (``ZstdDictionary/Compressor``).
//
// Thread safety: a `ZSTD_DDict` / `ZSTD_CDict` is read-only once made; zstd lets any number of
// contexts reference one at once. The pointers are freed when the last reference goes.

/// A trained zstd dictionary, ready to decompress with. Immutable; `Sendable`.
final class ZstdDictionary: @unchecked Sendable {
    /// The dictionary's id (never 0): the header's dictionary id of a segment that uses it.
    let id: UInt32
    /// The dictionary as stored (zstd's dictionary format: magic `37 A4 30 EC`, id, entropy
    /// tables, content).
    let bytes: [UInt8]
    let ddict: OpaquePointer

    /// The largest dictionary a segment may hold; a larger dictionary record is corruption.
    static let maxSize = 1 << 20

    /// Digests `bytes`, a dictionary in zstd's format whose id must be `expectedID`.
    /// - Throws: ``StrataError`` `.corruption` (no file named: the caller adds it) when the bytes
    ///   are not a zstd dictionary, carry another id, or do not load.
    init(bytes: [UInt8], expectedID: UInt32) throws(StrataError) {
        guard bytes.count >= 8, bytes.count <= Self.maxSize else {
            throw StrataError(.corruption, "zstd dictionary of \(bytes.count) bytes")
        }
        let id = bytes.withUnsafeBytes { UInt32(ZDICT_getDictID($0.baseAddress, $0.count)) }
        guard id != 0, id == expectedID else {
            throw StrataError(.corruption, "zstd dictionary has id \(id), the segment header names \(expectedID)")
        }
        guard let ddict = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) }) else {
            throw StrataError(.corruption, "zstd dictionary \(id) does not load (damaged entropy tables)")
        }
        self.id = id
        self.bytes = bytes
        self.ddict = ddict
    }

    deinit { ZSTD_freeDDict(ddict) }

    /// Trains a dictionary of at most `capacity` bytes from `samples`; nil when zstd cannot
    /// (too few or too uniform samples).
    static func train(samples: [[UInt8]], capacity: Int) -> [UInt8]? {
        let sizes = samples.map(\.count)
        let joined = Array(samples.joined())
        guard !joined.isEmpty else { return nil }
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let size = dictionary.withUnsafeMutableBytes { out in
            joined.withUnsafeBytes { data in
                sizes.withUnsafeBufferPointer { sizes in
                    ZDICT_trainFromBuffer(
                        out.baseAddress, out.count, data.baseAddress, sizes.baseAddress, UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(size) == 0, size > 8 else { return nil }
        return Array(dictionary[..<size])
    }

    /// The compressing side of a dictionary (`ZSTD_CDict`), made by the compaction that writes
    /// segments with it. Immutable; `Sendable`.
    final class Compressor: @unchecked Sendable {
        let dictionary: ZstdDictionary
        let cdict: OpaquePointer

        /// Nil when zstd cannot digest the dictionary (out of memory).
        init?(_ dictionary: ZstdDictionary, level: Int32) {
            guard let cdict = dictionary.bytes.withUnsafeBytes({
                ZSTD_createCDict($0.baseAddress, $0.count, level)
            }) else { return nil }
            self.dictionary = dictionary
            self.cdict = cdict
        }

        deinit { ZSTD_freeCDict(cdict) }
    }
}
