import CZstd

/// Zstandard compression of block payloads, as magicless frames.
///
/// Frames are written without the 4-byte magic number (`ZSTD_f_zstd1_magicless`), without
/// zstd's own checksum (Strata's CRC-32C already covers the stored bytes) and without the
/// content-size field: the caller records the exact decompressed size next to the payload and
/// hands it back to ``decompress(_:decompressedSize:limit:)``, which decodes into a buffer of
/// exactly that size and refuses anything else.
///
/// Thread safety: all entry points are static and may be called from any thread. zstd contexts
/// are expensive to create (a compression context is hundreds of KiB to MiB), so each call
/// borrows one from a small pool guarded by a `Locked` mutex, uses it exclusively, and returns it; at
/// most ``poolLimit`` idle contexts of each kind are kept.
///
/// A compacted segment may carry a trained dictionary (ZstdDictionary.swift): ``compress(_:level:)``
/// and ``decompress(_:decompressedSize:limit:dictionary:)`` then reference its `ZSTD_CDict` /
/// `ZSTD_DDict` on the borrowed context (`ZSTD_CCtx_refCDict`, `ZSTD_DCtx_refDDict`) and clear
/// the reference before the context goes back to the pool, since references are sticky. Frames
/// carry no dictionary id (`ZSTD_c_dictIDFlag` 0): the segment header names the dictionary.
struct ZstdCodec {
    /// Idle contexts kept per pool; more may exist while many threads compress at once, and the
    /// surplus is freed as they are returned.
    static let poolLimit = 8

    /// Compresses `source` into one magicless zstd frame at `level`.
    static func compress(
        _ source: UnsafeRawBufferPointer, level: Int32 = 3, dictionary: ZstdDictionary.Compressor? = nil
    ) -> [UInt8] {
        let context = borrowCompressionContext()
        defer { returnCompressionContext(context) }
        let cctx = context.pointer
        if let dictionary {
            check(ZSTD_CCtx_refCDict(cctx, dictionary.cdict), "reference a dictionary")
        }
        defer { if dictionary != nil { check(ZSTD_CCtx_refCDict(cctx, nil), "drop the dictionary") } }

        // Only the level varies between calls; format, checksum and content-size flags were set
        // when the context was created and are sticky.
        check(
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level),
            "set the compression level")

        let bound = ZSTD_compressBound(source.count)
        let frame = withNonNullSource(source) { sourcePointer in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, initializedCount in
                let written = ZSTD_compress2(
                    cctx, buffer.baseAddress, buffer.count, sourcePointer, source.count)
                // With a destination of ZSTD_compressBound bytes compression cannot fail short
                // of a zstd bug or an allocation failure inside zstd.
                check(written, "compress")
                initializedCount = written
            }
        }
        // The buffer was sized for incompressible input; don't hold on to that capacity when
        // the frame came out much smaller.
        guard frame.count < bound / 2 else { return frame }
        return frame.withUnsafeBytes { bytes in
            [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, initializedCount in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
                initializedCount = bytes.count
            }
        }
    }

    /// Decodes a frame written by ``compress(_:level:)`` into exactly `decompressedSize` bytes.
    ///
    /// Throws ``StrataError/Code/corruption`` when `decompressedSize` is negative or above
    /// `limit` (checked before anything is allocated), when zstd cannot decode the payload,
    /// or when it decodes to a different size. Never traps on malformed input.
    static func decompress(
        _ source: UnsafeRawBufferPointer, decompressedSize: Int, limit: Int, dictionary: ZstdDictionary? = nil
    ) throws(StrataError) -> [UInt8] {
        guard decompressedSize >= 0, decompressedSize <= limit else {
            throw StrataError(
                .corruption,
                "compressed payload declares \(decompressedSize) decompressed bytes; "
                    + "the limit is \(limit)")
        }

        // zstd decodes zero bytes of input as zero frames and zero output; every payload
        // ``compress(_:level:)`` writes holds a frame, so an empty one is damage.
        guard !source.isEmpty else {
            throw StrataError(.corruption, "compressed payload does not decode: it is empty")
        }

        let context = borrowDecompressionContext()
        defer { returnDecompressionContext(context) }
        let dctx = context.pointer
        if let dictionary {
            check(ZSTD_DCtx_refDDict(dctx, dictionary.ddict), "reference a dictionary")
        }
        defer { if dictionary != nil { check(ZSTD_DCtx_refDDict(dctx, nil), "drop the dictionary") } }

        var failure: StrataError?
        let result = withNonNullSource(source) { sourcePointer in
            [UInt8](unsafeUninitializedCapacity: decompressedSize) { buffer, initializedCount in
                initializedCount = 0
                let produced = withNonNullDestination(buffer) { destination in
                    ZSTD_decompressDCtx(
                        dctx, destination, decompressedSize, sourcePointer, source.count)
                }
                if ZSTD_isError(produced) != 0 {
                    failure = StrataError(
                        .corruption,
                        "compressed payload does not decode: \(errorName(produced))")
                } else if produced != decompressedSize {
                    failure = StrataError(
                        .corruption,
                        "compressed payload does not decode: it yields \(produced) bytes, "
                            + "expected \(decompressedSize)")
                } else {
                    initializedCount = produced
                }
            }
        }
        if let failure { throw failure }
        return result
    }

    // MARK: - Context pools

    /// `ZSTD_c_format` and `ZSTD_d_format` are `#define` aliases of experimental enum cases,
    /// which Swift does not import; these are the cases they name (zstd.h, static-linking API).
    private static let compressionFormatParameter = ZSTD_c_experimentalParam2
    private static let decompressionFormatParameter = ZSTD_d_experimentalParam1
    private static let magicless = Int32(bitPattern: ZSTD_f_zstd1_magicless.rawValue)

    /// A zstd context owned by whichever caller has borrowed it; never shared concurrently, so
    /// moving it between threads through the pool is safe.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static let compressionContexts = Locked<[Context]>([])
    private static let decompressionContexts = Locked<[Context]>([])

    private static func borrowCompressionContext() -> Context {
        if let context = compressionContexts.withLock({ $0.popLast() }) { return context }
        guard let cctx = ZSTD_createCCtx() else {
            fatalError("ZstdCodec: out of memory creating a compression context")
        }
        check(
            ZSTD_CCtx_setParameter(cctx, compressionFormatParameter, magicless),
            "select magicless frames")
        check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0), "disable the frame checksum")
        check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0), "omit the content size")
        check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0), "omit the dictionary id")
        return Context(pointer: cctx)
    }

    private static func returnCompressionContext(_ context: Context) {
        let kept = compressionContexts.withLock { pool -> Bool in
            guard pool.count < poolLimit else { return false }
            pool.append(context)
            return true
        }
        if !kept { ZSTD_freeCCtx(context.pointer) }
    }

    private static func borrowDecompressionContext() -> Context {
        if let context = decompressionContexts.withLock({ $0.popLast() }) { return context }
        guard let dctx = ZSTD_createDCtx() else {
            fatalError("ZstdCodec: out of memory creating a decompression context")
        }
        check(
            ZSTD_DCtx_setParameter(dctx, decompressionFormatParameter, magicless),
            "select magicless frames")
        return Context(pointer: dctx)
    }

    private static func returnDecompressionContext(_ context: Context) {
        let kept = decompressionContexts.withLock { pool -> Bool in
            guard pool.count < poolLimit else { return false }
            pool.append(context)
            return true
        }
        if !kept { ZSTD_freeDCtx(context.pointer) }
    }

    // MARK: - Helpers

    /// zstd's static description of an error code.
    static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }

    /// Traps on a zstd error in an operation that cannot fail on valid arguments (parameter
    /// setup, compression into a bound-sized buffer). Never used on untrusted input.
    private static func check(_ code: Int, _ operation: String) {
        if ZSTD_isError(code) != 0 {
            fatalError("ZstdCodec: zstd failed to \(operation): \(errorName(code))")
        }
    }

    /// Runs `body` with a non-null pointer to `source`'s bytes (empty buffers may have no base
    /// address; zstd wants a valid pointer even for zero bytes).
    private static func withNonNullSource<R>(
        _ source: UnsafeRawBufferPointer, _ body: (UnsafeRawPointer) throws -> R
    ) rethrows -> R {
        if let base = source.baseAddress { return try body(base) }
        var placeholder: UInt8 = 0
        return try withUnsafeBytes(of: &placeholder) { try body($0.baseAddress.unsafelyUnwrapped) }
    }

    /// Runs `body` with a non-null pointer to `buffer`'s storage, as ``withNonNullSource(_:_:)``.
    private static func withNonNullDestination<R>(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, _ body: (UnsafeMutableRawPointer) -> R
    ) -> R {
        if let base = buffer.baseAddress { return body(UnsafeMutableRawPointer(base)) }
        var placeholder: UInt8 = 0
        return withUnsafeMutableBytes(of: &placeholder) { body($0.baseAddress.unsafelyUnwrapped) }
    }
}
