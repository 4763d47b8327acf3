// The versions frozen databases keep alive, counted for
// `Configuration.maximumNumberOfActiveVersions`.

extension SharedStore {
    /// Notes that a frozen database reads version `sequence`.
    func pin(_ sequence: UInt64) { pinnedVersions.withLock { $0[sequence, default: 0] += 1 } }

    /// Notes that a frozen database of version `sequence` is gone.
    func unpin(_ sequence: UInt64) {
        pinnedVersions.withLock { versions in
            let count = (versions[sequence] ?? 1) - 1
            versions[sequence] = count > 0 ? count : nil
        }
    }

    /// The number of versions frozen databases read.
    var pinnedVersionCount: UInt { UInt(pinnedVersions.withLock { $0.count }) }
}
