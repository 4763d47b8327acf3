/// A growable run of bytes that a ``ByteWriter`` fills in one pass: it grows while it is
/// written, so nothing is counted first and no byte is zeroed first. A write transaction keeps
/// the records it encodes in one.
///
/// Thread safety: none; used by the thread that owns it (a write's).
final class ByteBuffer {
    private var base: UnsafeMutableRawPointer
    /// The bytes allocated.
    private(set) var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    init(capacity: Int = 4096) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Appends what `body` writes; nothing when it throws.
    func append(_ body: (inout ByteWriter<GrowingByteSink>) throws -> Void) rethrows {
        var writer = ByteWriter(GrowingByteSink(base: base, count: count, capacity: capacity))
        defer {
            // (Kept when `body` throws too: a growth freed the old memory.)
            base = writer.sink.base
            capacity = writer.sink.capacity
        }
        try body(&writer)
        count = writer.sink.count
    }

    /// Forgets the bytes written, keeping the memory for the next ones.
    func removeAll() { count = 0 }

    /// Calls `body` with the bytes in `range` (valid until the buffer is next written).
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "byte range out of the buffer")
        return try body(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }
}

/// The sink of a ``ByteBuffer`` being written: the buffer's memory, moved to a larger
/// allocation (double the size, at least) when a write does not fit.
struct GrowingByteSink: ByteSink {
    fileprivate(set) var base: UnsafeMutableRawPointer
    fileprivate(set) var count: Int
    fileprivate(set) var capacity: Int

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: count + extra) }
    }

    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    mutating func write(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func write<T: FixedWidthInteger>(littleEndian value: T) {
        reserve(MemoryLayout<T>.size)
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }
}
