extension Store {
    /// Whether compaction trains a zstd dictionary from the live values it copies and
    /// compresses small values with it (docs/design-storage.md, "Compression dictionaries").
    ///
    /// A value; `Sendable`.
    public enum DictionaryCompression: Sendable, Equatable {
        /// Never: compacted segments hold their records as they were written. The default.
        case off
        /// When it pays: at least 1,000 small records (frames of at most 1 KiB) are copied, and
        /// on a sample of them the dictionary saves more than twice the bytes of the copies of
        /// itself that the output segments will carry.
        case automatic
        /// Whenever zstd can train a dictionary from the small records copied (at least 8 of
        /// them), whatever it saves: for tests of the format with few records.
        case always
    }
}
