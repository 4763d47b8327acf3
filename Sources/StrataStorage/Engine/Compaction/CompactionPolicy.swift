/// When a store compacts itself in the background (see ``Store/Options/compaction``).
///
/// A compaction always rewrites the whole sealed part of the log (every segment but the active
/// one; docs/design-storage.md, "Compaction"), so the policy judges that part as one: it runs when the
/// sealed segments hold at least `minimumBytes` and at least `minimumDeadRatio` of their bytes
/// are dead (overwritten values, tombstones, commit records).
///
/// ```swift
/// var options = Store.Options()
/// options.compaction = .automatic(minimumDeadRatio: 0.3, minimumBytes: 256 << 20)
/// ```
///
/// A value type; `Sendable`.
public enum CompactionPolicy: Sendable, Hashable {
    /// Compact only when ``Store/compact()-2quz9`` is called.
    case manual
    /// Compact in the background when the sealed segments hold at least `minimumBytes` bytes,
    /// of which at least `minimumDeadRatio` (0…1) are dead.
    case automatic(minimumDeadRatio: Double, minimumBytes: Int)

    /// The default: `.automatic(minimumDeadRatio: 0.5, minimumBytes: 64 MiB)`.
    public static let `default` = CompactionPolicy.automatic(minimumDeadRatio: 0.5, minimumBytes: 64 << 20)

    /// Whether sealed segments of `sealedBytes` bytes, `liveBytes` of them live, are worth
    /// compacting.
    /// - Complexity: O(1).
    public func shouldCompact(sealedBytes: Int, liveBytes: Int) -> Bool {
        guard case .automatic(let ratio, let minimum) = self, sealedBytes > 0, sealedBytes >= minimum else {
            return false
        }
        let dead = Double(max(0, sealedBytes - liveBytes))
        return dead >= ratio * Double(sealedBytes)
    }

    /// Checks the policy.
    /// - Throws: ``StrataError`` `.invalidArgument` when the ratio is outside 0…1 or the byte
    ///   count is negative.
    func validate() throws {
        guard case .automatic(let ratio, let minimum) = self else { return }
        guard (0...1).contains(ratio) else {
            throw StrataError(.invalidArgument, "compaction minimumDeadRatio \(ratio) is outside 0…1")
        }
        guard minimum >= 0 else {
            throw StrataError(.invalidArgument, "compaction minimumBytes \(minimum) is negative")
        }
    }
}
