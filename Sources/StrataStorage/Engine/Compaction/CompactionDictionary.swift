import CZstd

// Training the zstd dictionary one compaction (or one writeCopy) writes its segments with.
//
// Before copying, the compaction walks the keys it will copy (no I/O: the index holds each
// record's length) and counts the small ones, whose frame is at most `recordLimit` bytes. It
// then reads an evenly spaced sample of them, up to `sampleBudget` bytes of values, and trains
// a dictionary of at most `capacity` bytes (ZDICT_trainFromBuffer). Under `.automatic` the
// dictionary is kept only when
//
//   - at least `minimumRecords` small records are copied, and
//   - the bytes it saves on the sample (stored payload − dictionary-compressed payload, for
//     each record it shrinks), scaled up to every small record, exceed twice the bytes of the
//     dictionary records the output segments will carry (one per output segment, estimated as
//     the copied bytes over `segmentSize`, at least one).
//
// Every output segment of the compaction carries the same dictionary (SegmentDictionary.swift).
// Training reads records; a record that fails its checks is left out of the sample, and the
// copy that follows reports it.

enum CompactionDictionary {
    /// The largest frame (header and payload) a record may have to be sampled and compressed
    /// with the dictionary.
    static let recordLimit = 1024
    /// Under `.automatic`, the fewest small records that make a dictionary worth training.
    static let minimumRecords = 1000
    /// The fewest samples zstd is asked to train from.
    static let minimumSamples = 8
    /// Bytes of values sampled at most.
    static let sampleBudget = 4 << 20
    /// The largest dictionary trained.
    static let capacity = 16 << 10

    /// Trains the dictionary for copying the records `forEachRecord` visits (each with its
    /// location in a segment of `segments`) into segments of `segmentSize` bytes; nil when the
    /// policy says no, the destination is encrypted, or zstd cannot train one.
    static func train(
        policy: Store.DictionaryCompression, encrypted: Bool, segmentSize: Int, level: Int32, segments: SegmentMap,
        forEachRecord: ((RecordLocation) -> Void) -> Void
    ) -> ZstdDictionary.Compressor? {
        guard policy != .off, !encrypted else { return nil }
        var small = 0
        var copiedBytes = 0
        forEachRecord { location in
            copiedBytes += Int(location.length)
            if location.length <= recordLimit { small += 1 }
        }
        let fewest = policy == .always ? minimumSamples : minimumRecords
        guard small >= fewest else { return nil }

        // Every `stride`-th small record, so that the sample spans the keyspaces.
        let stride = max(1, small * recordLimit / sampleBudget)
        var samples: [[UInt8]] = []
        var stored: [Int] = []
        var seen = 0
        var sampledBytes = 0
        forEachRecord { location in
            guard location.length <= recordLimit else { return }
            defer { seen += 1 }
            guard seen % stride == 0, sampledBytes < sampleBudget,
                  let (value, payload) = sample(at: location, in: segments), !value.isEmpty
            else { return }
            samples.append(value)
            stored.append(payload)
            sampledBytes += value.count
        }
        guard samples.count >= minimumSamples,
              let bytes = ZstdDictionary.train(samples: samples, capacity: min(capacity, max(1024, sampledBytes / 10))),
              let id = ZDictID.of(bytes),
              let dictionary = try? ZstdDictionary(bytes: bytes, expectedID: id),
              let compressor = ZstdDictionary.Compressor(dictionary, level: level)
        else { return nil }
        guard policy == .automatic else { return compressor }

        var saved = 0
        for (value, payload) in zip(samples, stored) {
            let frame = value.withUnsafeBytes { ZstdCodec.compress($0, dictionary: compressor) }
            saved += max(0, payload - (frame.count + 4))
        }
        let estimatedSaving = Double(saved) * Double(small) / Double(samples.count)
        let outputSegments = max(1, copiedBytes / segmentSize)
        let cost = Double(outputSegments * (RecordFormat.headerSize + bytes.count))
        return estimatedSaving > 2 * cost ? compressor : nil
    }

    /// The value of the record at `location` and the bytes it takes as stored (raw, or its
    /// compressed frame with its length; raw for one compressed with a dictionary, which a
    /// compaction without a dictionary writes raw); nil when it cannot be read or fails its checks.
    private static func sample(at location: RecordLocation, in segments: SegmentMap) -> ([UInt8], Int)? {
        guard let segment = segments[location.segment] else { return nil }
        let offset = Int(location.offset)
        return try? segment.file.withBytes(at: offset, count: Int(location.length)) { bytes in
            try RecordDecoder.withDecoded(bytes, seal: segment.seal, at: offset) { decoded -> ([UInt8], Int)? in
                guard case .success(let record) = decoded, record.kind == .put else { return nil }
                let value = try record.value()
                // A value compressed with its segment's dictionary is written raw without one.
                if record.usesDictionary { return (value, value.count) }
                return (value, record.valueBytes.count + (record.isCompressed ? 4 : 0))
            }
        }
    }
}

/// The id zstd wrote into a trained dictionary.
private enum ZDictID {
    static func of(_ bytes: [UInt8]) -> UInt32? {
        let id = bytes.withUnsafeBytes { UInt32(ZDICT_getDictID($0.baseAddress, $0.count)) }
        return id == 0 ? nil : id
    }
}
