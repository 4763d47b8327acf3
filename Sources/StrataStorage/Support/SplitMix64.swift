/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, deterministic pseudo-random
/// generator. Strata uses it wherever a run must be reproducible from a seed: the crash images
/// of ``MemoryFileSystem/CrashPolicy/random(seed:)``, test workloads, the `strata demo` data.
///
/// Not for anything that needs unpredictability. A value type; `Sendable`. `@_spi(Testing)` and
/// `@_spi(Tooling)`: seen only through `@_spi(Testing) import StrataStorage` (tests) or
/// `@_spi(Tooling) import StrataStorage` (the `strata` tool).
@_spi(Testing) @_spi(Tooling) public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    @_spi(Testing) @_spi(Tooling) public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @_spi(Testing) @_spi(Tooling) public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
