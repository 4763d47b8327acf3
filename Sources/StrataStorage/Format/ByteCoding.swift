// Little-endian integer coding into and out of byte buffers.
//
// All multi-byte integers in Strata's files are little-endian. These helpers are pure functions
// over caller-owned memory and are safe to use from any thread.

extension Array where Element == UInt8 {
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
