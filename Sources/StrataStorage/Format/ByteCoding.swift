// Little-endian integer coding into and out of byte buffers.
//
// All multi-byte integers in Strata's files are little-endian. These helpers are pure functions
// over caller-owned memory and are safe to use from any thread.

extension Array where Element == UInt8 {
    /// Appends `count` zero bytes: copied from a zeroed page when they fit in one (much faster
    /// than a repeated element, which is appended byte by byte).
    mutating func appendZeros(_ count: Int) {
        if count <= ZeroPage.size {
            append(contentsOf: UnsafeRawBufferPointer(start: ZeroPage.bytes, count: count))
        } else {
            append(contentsOf: repeatElement(0, count: count))
        }
    }

    @inlinable
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    /// Loads a little-endian integer at `offset`. The caller guarantees the bytes are in range.
    @inlinable
    func loadLittleEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Stores a little-endian integer at `offset`. The caller guarantees the bytes are in range.
    @inlinable
    func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }
}

/// A page of zero bytes, allocated once and never written.
enum ZeroPage {
    static let size = 4096
    nonisolated(unsafe) static let bytes: UnsafeRawPointer = {
        let page = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        page.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        return UnsafeRawPointer(page)
    }()
}
