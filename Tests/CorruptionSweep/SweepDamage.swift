import Foundation

/// One change made to one file of a copy of the fixture.
public struct SweepDamage: Sendable, CustomStringConvertible {
    /// What is done to the byte at `offset`.
    public enum Change: Sendable, CustomStringConvertible {
        /// XOR with 0xFF.
        case invert
        /// XOR with `1 << bit`.
        case flipBit(Int)
        /// Set to 0.
        case zero
        /// The file is cut at the offset.
        case truncate

        public var description: String {
            switch self {
            case .invert: "invert"
            case .flipBit(let bit): "flip bit \(bit)"
            case .zero: "zero"
            case .truncate: "truncate"
            }
        }
    }

    /// The file's name in the directory (`MANIFEST` or a segment).
    public let file: String
    public let offset: Int
    public let change: Change
    /// Whether the checksum covering the byte is recomputed after the change (so that the
    /// damaged bytes reach the decoders behind it).
    public let recomputesChecksum: Bool

    public init(file: String, offset: Int, change: Change, recomputesChecksum: Bool) {
        self.file = file
        self.offset = offset
        self.change = change
        self.recomputesChecksum = recomputesChecksum
    }

    public var description: String {
        "\(change) \(file) at \(offset)\(recomputesChecksum ? ", checksum recomputed" : "")"
    }

    /// The damaged contents of the file whose undamaged contents are `bytes`.
    public func applied(to bytes: [UInt8]) -> [UInt8] {
        var damaged = bytes
        switch change {
        case .invert: damaged[offset] ^= 0xFF
        case .flipBit(let bit): damaged[offset] ^= UInt8(1) << UInt8(bit)
        case .zero: damaged[offset] = 0
        case .truncate: return Array(bytes[..<offset])
        }
        if recomputesChecksum, let span = SweepChecksums.span(covering: offset, in: bytes, file: file) {
            SweepChecksums.reseal(span, in: &damaged)
        }
        return damaged
    }
}
