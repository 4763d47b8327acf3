// Where the object layer's encoders put bytes.

/// Where a ``ByteWriter`` puts its bytes: a ``ByteCounter`` that only counts them, a
/// ``RawByteSink`` that stores them in memory sized by a count first (encoding runs the same
/// code twice, so the size and the bytes cannot disagree), or a ``GrowingByteSink`` that grows
/// a ``ByteBuffer`` as it goes (one pass).
protocol ByteSink {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeRawBufferPointer)
    mutating func write<T: FixedWidthInteger>(littleEndian value: T)
    /// A string's UTF-8 bytes (not prefixed).
    mutating func write(utf8 text: String)
}

extension ByteSink {
    /// Copies the string's bytes from its contiguous UTF-8 storage.
    mutating func write(utf8 text: String) {
        // A native string's bytes are contiguous: no copy of the string (and no retain).
        if text.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) != nil { return }
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}

/// Counts the bytes a ``ByteWriter`` would write.
struct ByteCounter: ByteSink {
    private(set) var count = 0
    mutating func write(_ byte: UInt8) { count += 1 }
    mutating func write(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
    mutating func write<T: FixedWidthInteger>(littleEndian value: T) { count += MemoryLayout<T>.size }
    mutating func write(utf8 text: String) { count += text.utf8.count }
}

/// Stores bytes at successive positions of memory the caller sized with a ``ByteCounter``
/// pass over the same values (checked in debug builds).
struct RawByteSink: ByteSink {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var position = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    var isFull: Bool { position == buffer.count }

    mutating func write(_ byte: UInt8) {
        assert(position < buffer.count)
        buffer.baseAddress.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
        position += 1
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        assert(position + bytes.count <= buffer.count)
        guard let source = bytes.baseAddress else { return }
        (buffer.baseAddress.unsafelyUnwrapped + position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }

    mutating func write<T: FixedWidthInteger>(littleEndian value: T) {
        assert(position + MemoryLayout<T>.size <= buffer.count)
        buffer.baseAddress.unsafelyUnwrapped.storeBytes(of: value.littleEndian, toByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
    }

}
