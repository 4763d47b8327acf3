#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Random nonces for SegmentCipher, read from the kernel's CSPRNG (`/dev/urandom`) 4 KiB at a
// time: one read per 341 nonces instead of two `getrandom` calls per nonce
// (`SystemRandomNumberGenerator` asks for 8 bytes a call). Every byte is used once. Thread-safe: the pool is behind a lock (only one
// writer seals at a time in practice, so it is never contended).

/// A source of random 12-byte nonces. Thread-safe.
final class NoncePool: Sendable {
    /// Bytes drawn from the kernel at once.
    static let refillSize = 4096

    private let pool = Locked((bytes: [UInt8](), used: 0))

    /// The pool every segment cipher draws from.
    static let shared = NoncePool()

    /// Stores the next 12 random bytes at the start of `destination`.
    func next(into destination: UnsafeMutableRawBufferPointer) {
        pool.withLock { pool in
            if pool.used + SegmentCipher.nonceLength > pool.bytes.count {
                pool.bytes = Self.randomBytes(Self.refillSize)
                pool.used = 0
            }
            pool.bytes.withUnsafeBytes { bytes in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[pool.used..<(pool.used + SegmentCipher.nonceLength)]))
            }
            pool.used += SegmentCipher.nonceLength
        }
    }

    /// `count` bytes from `/dev/urandom`; where it cannot be read, from
    /// `SystemRandomNumberGenerator` (the same kernel source, 8 bytes a call).
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            bytes.withUnsafeMutableBytes { raw in
                while filled < count {
                    let got = read(descriptor, raw.baseAddress.unsafelyUnwrapped + filled, count - filled)
                    if got > 0 {
                        filled += got
                    } else if got == 0 || errno != EINTR {
                        break
                    }
                }
            }
            close(descriptor)
        }
        if filled < count {
            var generator = SystemRandomNumberGenerator()
            for position in filled..<count { bytes[position] = UInt8.random(in: 0...255, using: &generator) }
        }
        return bytes
    }
}
