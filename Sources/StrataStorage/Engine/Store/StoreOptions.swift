extension Store {
    /// How a store is opened and how it writes.
    ///
    /// A value type; `Sendable`.
    public struct Options: Sendable {
        /// The durability of commits that do not name one. Default `.full`.
        public var durability: Durability = .full
        /// A segment is sealed and a new one started when the next transaction would make it
        /// larger than this many bytes. Default 64 MiB; at least 4 KiB, at most 2 GiB.
        /// (A single transaction larger than this gets a segment of its own.)
        public var segmentSize: Int = 64 << 20
        /// Values of at least this many bytes are stored zstd-compressed when that makes them
        /// smaller. Default 4,096; `Int.max` turns compression off.
        public var compressionThreshold: Int = 4096
        /// The zstd level for compressed values. Default 3.
        public var compressionLevel: Int32 = 3
        /// Whether compaction (manual, background and ``Store/writeCopy(toDirectory:on:encryptionKey:)``)
        /// compresses small values with a zstd dictionary trained from the live values it
        /// copies. Default ``DictionaryCompression/off``: a value compressed with the dictionary
        /// costs each read a decompression (about 0.5 µs for 200 bytes), where a plain one is
        /// read in place. Encrypted stores and encrypted copies never use one: the dictionary is
        /// made of plaintext samples.
        public var dictionaryCompression: DictionaryCompression = .off
        /// The largest value a commit accepts, in bytes. Default 256 MiB; at most 512 MiB.
        /// Reads are not limited by it: a value a store with a larger limit wrote reads whole.
        public var maxValueSize: Int = 256 << 20
        /// Open without taking the lock and refuse every write. Nothing on disk changes, not
        /// even a torn tail. Default `false`.
        public var readOnly = false
        /// With ``readOnly``: when a segment is corrupt, keep every transaction before the
        /// damage instead of refusing to open, and report what was skipped in
        /// ``Store/recoveryEvents``. Default `false`.
        public var salvage = false
        /// Write a hint file (Bitcask's) for each segment the store seals, and open sealed
        /// segments from their hints instead of scanning them. Default `false`.
        ///
        /// With `true`, a roll, a compaction and `writeCopy` write a hint for each segment they
        /// seal (unencrypted stores only), `close()` seals an active segment holding at least an
        /// eighth of ``segmentSize``, and open reads a sealed segment's hint and scans only the
        /// newest segment and those whose hint is missing, damaged or does not match (a
        /// ``RecoveryEvent`` each): open does not read every record, so damage inside a sealed
        /// segment's records is found when a snapshot reads them (or by `strata verify`), not
        /// at open. Writing a hint costs a roll a re-read of the sealed segment and a sort of
        /// its keys.
        public var openWithHints = false
        /// Check each record's checksum when a snapshot reads it. Default `true`.
        public var verifyChecksumsOnRead = true
        /// The file system the store goes through. Default: the real one, reading through
        /// `mmap`. A read-only store given a ``PosixFileSystem`` reads with `pread` instead
        /// (see ``PosixFileSystem/mappedReads``).
        public var fileSystem: any FileSystem = PosixFileSystem()
        /// The 64-byte key the store is encrypted with, or nil for a store that is not
        /// encrypted. Default nil.
        ///
        /// A store created with a key encrypts the keys and values of every record with
        /// AES-256-GCM under keys derived from it (docs/design-storage.md, "Encryption at rest"); it can
        /// be opened only with the same key. A store's key cannot change in place: use
        /// ``Store/writeCopy(toDirectory:on:encryptionKey:)``. Opening fails with `.invalidKey`
        /// when the key is wrong, missing for an encrypted store, given for a plain one, or not
        /// 64 bytes long. Keep the key outside the store's directory.
        public var encryptionKey: [UInt8]?

        /// When the store compacts itself in a background thread. Default
        /// ``CompactionPolicy/default`` (at least 64 MiB of sealed segments, half of it dead);
        /// ``CompactionPolicy/manual`` leaves compaction to ``Store/compact()-2quz9``. Not used
        /// read-only.
        public var compaction: CompactionPolicy = .default
        /// Called, on the compactor's thread, with the error of each background compaction
        /// that fails (the store keeps working, and the next segment seal retries; a failure
        /// of the directory sync or MANIFEST install makes the store refuse writes, as for
        /// ``Store/compact()-2quz9``). Also in ``Store/backgroundCompaction``. Default nil.
        public var onBackgroundCompactionFailure: (@Sendable (StrataError) -> Void)?

        /// Options with every default.
        public init() {}

        /// Checks the options.
        /// - Throws: ``StrataError`` `.invalidArgument` naming the option that is out of range.
        func validate() throws {
            guard (4096...(2 << 30)).contains(segmentSize) else {
                throw StrataError(.invalidArgument, "segmentSize \(segmentSize) is outside 4 KiB…2 GiB")
            }
            guard compressionThreshold >= 1 else {
                throw StrataError(.invalidArgument, "compressionThreshold must be at least 1")
            }
            guard (1...22).contains(compressionLevel) else {
                throw StrataError(.invalidArgument, "compressionLevel \(compressionLevel) is outside 1…22")
            }
            guard (0...RecordFormat.maxValueLength).contains(maxValueSize) else {
                throw StrataError(.invalidArgument, "maxValueSize \(maxValueSize) is outside 0…512 MiB")
            }
            guard !salvage || readOnly else {
                throw StrataError(.invalidArgument, "salvage requires readOnly: a salvaged store cannot be written")
            }
            try compaction.validate()
            _ = try storeKey()
        }

        /// The store key made of ``encryptionKey``, or nil.
        /// - Throws: ``StrataError`` `.invalidKey` when the key is not 64 bytes long.
        func storeKey() throws(StrataError) -> StoreKey? {
            guard let encryptionKey else { return nil }
            return try StoreKey(encryptionKey)
        }
    }
}
