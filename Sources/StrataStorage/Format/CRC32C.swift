import CStrataChecksum

/// CRC-32C (Castagnoli): the checksum that guards every record, block and header Strata writes.
///
/// The polynomial is 0x1EDC6F41, used in its reflected form 0x82F63B78, with the usual initial
/// value and final XOR of `0xFFFF_FFFF`; `checksum("123456789")` is `0xE3069283`. Where the
/// processor has a CRC-32C instruction (SSE 4.2 on x86-64, the CRC extension on AArch64) the
/// register advances eight bytes per instruction (Sources/CStrataChecksum); elsewhere portable
/// Swift using slicing-by-8 does it: eight 256-entry tables, built once on first use, let the
/// loop fold eight bytes per step with unaligned 64-bit loads. Both give the same checksums
/// (`CRC32CTests` compares them on random input).
///
/// A checksum can be computed in pieces: `checksum(b, extending: checksum(a))` equals
/// `checksum(a + b)`.
///
/// Stored checksums are *masked* (LevelDB's scheme: rotate right 15 bits, add `0xa282ead8`).
/// Computing the CRC of a string that contains its own CRC is a degenerate case that makes
/// accidental matches far likelier; masking the stored value breaks that pattern, so a CRC
/// embedded in data that is itself checksummed (a block holding record checksums, say) does not
/// weaken the outer checksum.
///
/// Thread safety: every member is a pure function of its arguments; the lookup tables are an
/// immutable `static let` initialised once, atomically, by the runtime. Call from any thread.
///
/// `@_spi(Testing)`: through `@_spi(Testing) import StrataStorage`, tests, fuzzers and
/// corruption tools see ``checksum(_:extending:)``, ``checksum(_:)`` and ``mask(_:)``, so that
/// they recompute the checksums of bytes they damaged exactly as the engine does:
///
/// ```swift
/// let stored = CRC32C.mask(CRC32C.checksum(Array(header[..<SegmentHeader.checksumOffset])))
/// ```
@_spi(Testing) public enum CRC32C {
    /// Whether this processor has the CRC-32C instruction (checked once).
    static let hasInstruction = strata_crc32c_hardware_available() != 0

    /// The reflected Castagnoli polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    /// LevelDB's mask delta.
    static let maskDelta: UInt32 = 0xA282_EAD8

    /// Slicing-by-8 tables, laid out as 8 consecutive runs of 256 entries. Run 0 is the classic
    /// bytewise table; run k advances a byte's contribution through k more zero bytes.
    static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1
            }
            table[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = table[(slice - 1) * 256 + index]
                table[slice * 256 + index] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// The CRC-32C of `bytes`, continuing from `crc` (the checksum of the bytes before them, or 0
    /// to start afresh).
    /// - Complexity: O(n) in `bytes.count`.
    @_spi(Testing) public static func checksum(
        _ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0
    ) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        if hasInstruction { return ~strata_crc32c_update(~crc, base, bytes.count) }
        return portableChecksum(bytes, extending: crc)
    }

    /// ``checksum(_:extending:)`` by the slicing-by-8 tables, whatever the processor has.
    /// - Complexity: O(n) in `bytes.count`.
    static func portableChecksum(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return table.withUnsafeBufferPointer { table in
            ~update(~crc, base, bytes.count, table.baseAddress.unsafelyUnwrapped)
        }
    }

    /// The CRC-32C of `bytes`.
    /// - Complexity: O(n) in `bytes.count`.
    @_spi(Testing) public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// Masks a CRC for storage (rotate right by 15 bits, then add a constant).
    @_spi(Testing) public static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ maskDelta
    }

    /// Recovers the CRC from a value produced by ``mask(_:)``.
    static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- maskDelta
        return (rotated >> 17) | (rotated << 15)
    }

    /// The slicing-by-8 core on the un-inverted register. No bounds checks: `table` holds
    /// 8 * 256 entries and every index is masked to a byte.
    @inline(__always)
    private static func update(
        _ crc: UInt32, _ base: UnsafeRawPointer, _ count: Int, _ table: UnsafePointer<UInt32>
    ) -> UInt32 {
        var crc = crc
        var pointer = base
        var remaining = count

        while remaining >= 8 {
            let word = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
            let low = UInt32(truncatingIfNeeded: word) ^ crc
            let high = UInt32(truncatingIfNeeded: word &>> 32)
            crc = table[7 &* 256 &+ Int(truncatingIfNeeded: low & 0xFF)]
                ^ table[6 &* 256 &+ Int(truncatingIfNeeded: (low &>> 8) & 0xFF)]
                ^ table[5 &* 256 &+ Int(truncatingIfNeeded: (low &>> 16) & 0xFF)]
                ^ table[4 &* 256 &+ Int(truncatingIfNeeded: low &>> 24)]
                ^ table[3 &* 256 &+ Int(truncatingIfNeeded: high & 0xFF)]
                ^ table[2 &* 256 &+ Int(truncatingIfNeeded: (high &>> 8) & 0xFF)]
                ^ table[1 &* 256 &+ Int(truncatingIfNeeded: (high &>> 16) & 0xFF)]
                ^ table[Int(truncatingIfNeeded: high &>> 24)]
            pointer += 8
            remaining &-= 8
        }
        while remaining > 0 {
            let byte = UInt32(pointer.load(as: UInt8.self))
            crc = table[Int(truncatingIfNeeded: (crc ^ byte) & 0xFF)] ^ (crc &>> 8)
            pointer += 1
            remaining &-= 1
        }
        return crc
    }
}
