// `StorageProfile dictionary [records]`: compaction with a trained zstd dictionary against
// per-record zstd, on small object-like records (JSON of one shape, 100–300 bytes, with
// realistic field names and varied values, like the records the object layer stores).
//
//   bytes    segment bytes after compaction: raw (no compression), per-record zstd
//            (compressionThreshold 1, level 3, no dictionary), and with a dictionary
//            (dictionaryCompression .automatic); ratios against raw values
//   train    ZDICT_trainFromBuffer on the sample compaction takes (up to 4 MiB, 16 KiB dictionary)
//   codec    µs per record to compress and to decompress one value with the dictionary
//            (magicless frame, no checksum, level 3, as the store does) and without
//   get      random point reads through `withValue` on the compacted stores

import CZstd
import Foundation
import StorageWorkloads
import StrataStorage

/// A JSON object of the shape an app stores for a customer order.
func orderRecord(_ id: Int, random: inout SystemRandomNumberGenerator) -> [UInt8] {
    let names = ["Alice Martin", "Bjørn Olsen", "Chen Wei", "Dara O'Neill", "Emma Rossi", "Farid Haddad", "Grace Kim"]
    let cities = ["Lyon", "Oslo", "Porto", "Austin", "Kyoto", "Nairobi", "Lima", "Tallinn"]
    let statuses = ["pending", "paid", "shipped", "delivered", "refunded"]
    let name = names.randomElement(using: &random)!
    let items = Int.random(in: 1...3, using: &random)
    var lines: [String] = []
    for _ in 0..<items {
        lines.append("{\"sku\":\"SKU-\(Int.random(in: 10000...99999, using: &random))\",\"qty\":\(Int.random(in: 1...9, using: &random)),\"price\":\(Int.random(in: 199...99999, using: &random))}")
    }
    let json = "{\"id\":\(id),\"customer\":\"\(name)\",\"email\":\"\(name.lowercased().replacingOccurrences(of: " ", with: "."))\(Int.random(in: 1...999, using: &random))@example.com\","
        + "\"city\":\"\(cities.randomElement(using: &random)!)\",\"status\":\"\(statuses.randomElement(using: &random)!)\","
        + "\"created\":\"2026-\(String(format: "%02d", Int.random(in: 1...12, using: &random)))-\(String(format: "%02d", Int.random(in: 1...28, using: &random)))T\(String(format: "%02d", Int.random(in: 0...23, using: &random))):\(String(format: "%02d", Int.random(in: 0...59, using: &random))):00Z\","
        + "\"items\":[\(lines.joined(separator: ","))]}"
    return Array(json.utf8)
}

func runDictionary(records: Int) throws {
    var random = SystemRandomNumberGenerator()
    let values = (0..<records).map { orderRecord($0, random: &random) }
    let rawBytes = values.reduce(0) { $0 + $1.count }
    print("records: \(records), value bytes: \(rawBytes) (mean \(rawBytes / records) B, \(values.map(\.count).min()!)–\(values.map(\.count).max()!) B)")

    var stores: [(String, Int, Double)] = []
    for (label, threshold, policy) in [("raw", Int.max, Store.DictionaryCompression.off),
                                       ("zstd per record", 1, .off), ("dictionary", Int.max, .automatic)] {
        let directory = Workloads.makeScratchDirectory("profile-dict")
        defer { Workloads.removeScratchDirectory(directory) }
        var options = Workloads.options(durability: .none)
        options.segmentSize = 8 << 20
        options.compressionThreshold = threshold
        options.dictionaryCompression = policy
        options.compaction = .manual
        let store = try Store(directory: directory, options: options)
        for start in stride(from: 0, to: records, by: 1000) {
            var batch = WriteBatch()
            for id in start..<min(records, start + 1000) {
                batch.put(values[id], forKey: StorageKey(UInt64(id)), in: Keyspace(1))
            }
            try store.commit(batch)
        }
        // Roll the last segment: fill it past the size with one large value, then delete it.
        var roll = WriteBatch()
        roll.put([UInt8](repeating: 1, count: 9 << 20), forKey: StorageKey("roll"), in: Keyspace(2))
        try store.commit(roll)
        var drop = WriteBatch()
        drop.delete(StorageKey("roll"), in: Keyspace(2))
        try store.commit(drop)
        let report = try store.compact()
        let compactedBytes = report.bytesWritten
        let snapshot = store.snapshot()
        let gets = 200_000
        let getTime = try medianSeconds {
            try Workloads.timed { _ = try Workloads.randomGets(gets, keyCount: records, from: snapshot) }.wall
        }
        print("\(label): compacted \(compactedBytes) B (\(String(format: "%.2f", Double(rawBytes) / Double(compactedBytes)))× the raw values incl. keys and frames), compaction \(String(format: "%.0f", report.duration.seconds * 1000)) ms, get \(String(format: "%.2f", getTime / Double(gets) * 1e6)) µs")
        stores.append((label, compactedBytes, getTime))
        try store.close()
    }
    let plain = Double(stores[1].1), withDictionary = Double(stores[2].1)
    print("dictionary vs per-record zstd: \(String(format: "%.2f", plain / withDictionary))× smaller; vs raw: \(String(format: "%.2f", Double(stores[0].1) / withDictionary))×")
    try measureCodec(values)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Training time and per-record codec cost, with the store's frame parameters.
func measureCodec(_ values: [[UInt8]]) throws {
    // The sample compaction takes: evenly spaced, up to 4 MiB.
    let stride = max(1, values.count * 1024 / (4 << 20))
    let samples = Swift.stride(from: 0, to: values.count, by: stride).map { values[$0] }
    let joined = Array(samples.joined())
    var sizes = samples.map(\.count)
    var dictionary = [UInt8](repeating: 0, count: 16 << 10)
    let start = Date()
    let size = dictionary.withUnsafeMutableBytes { out in
        joined.withUnsafeBytes { ZDICT_trainFromBuffer(out.baseAddress, out.count, $0.baseAddress, &sizes, UInt32(sizes.count)) }
    }
    let train = Date().timeIntervalSince(start)
    guard ZDICT_isError(size) == 0 else { print("training failed"); return }
    dictionary.removeSubrange(size...)
    print("train: \(samples.count) samples, \(joined.count) B → \(size) B dictionary in \(String(format: "%.0f", train * 1000)) ms")

    let cctx = ZSTD_createCCtx()!, dctx = ZSTD_createDCtx()!
    defer { ZSTD_freeCCtx(cctx); ZSTD_freeDCtx(dctx) }
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_experimentalParam2, Int32(bitPattern: ZSTD_f_zstd1_magicless.rawValue))
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0)
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0)
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0)
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3)
    ZSTD_DCtx_setParameter(dctx, ZSTD_d_experimentalParam1, Int32(bitPattern: ZSTD_f_zstd1_magicless.rawValue))
    let cdict = dictionary.withUnsafeBytes { ZSTD_createCDict($0.baseAddress, $0.count, 3) }!
    let ddict = dictionary.withUnsafeBytes { ZSTD_createDDict($0.baseAddress, $0.count) }!
    defer { ZSTD_freeCDict(cdict); ZSTD_freeDDict(ddict) }

    let subset = Array(values.prefix(100_000))
    for useDictionary in [false, true] {
        ZSTD_CCtx_refCDict(cctx, useDictionary ? cdict : nil)
        ZSTD_DCtx_refDDict(dctx, useDictionary ? ddict : nil)
        var frames: [[UInt8]] = []
        frames.reserveCapacity(subset.count)
        var out = [UInt8](repeating: 0, count: 4096)
        let compressStart = Date()
        for value in subset {
            let n = out.withUnsafeMutableBytes { o in value.withUnsafeBytes { ZSTD_compress2(cctx, o.baseAddress, o.count, $0.baseAddress, $0.count) } }
            frames.append(Array(out[..<n]))
        }
        let compress = Date().timeIntervalSince(compressStart)
        let decompressStart = Date()
        for (frame, value) in zip(frames, subset) {
            let n = out.withUnsafeMutableBytes { o in frame.withUnsafeBytes { ZSTD_decompressDCtx(dctx, o.baseAddress, value.count, $0.baseAddress, $0.count) } }
            precondition(n == value.count)
        }
        let decompress = Date().timeIntervalSince(decompressStart)
        let raw = subset.reduce(0) { $0 + $1.count }, packed = frames.reduce(0) { $0 + $1.count + 4 }
        print("\(useDictionary ? "with dictionary" : "no dictionary"): values \(String(format: "%.2f", Double(raw) / Double(packed)))× (frame + 4-byte length), compress \(String(format: "%.2f", compress / Double(subset.count) * 1e6)) µs, decompress \(String(format: "%.2f", decompress / Double(subset.count) * 1e6)) µs per record")
    }
}
